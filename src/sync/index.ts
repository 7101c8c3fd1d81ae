/**
 * The front door of src/sync/: what the rest of the code may import from it.
 */
export {
  DigestSchema,
  PendingChangeSchema,
  listPending,
  parsePending,
  pendingDigest,
  pendingFrom,
  withDigests,
} from "./pending";
export type { PendingChange } from "./pending";
