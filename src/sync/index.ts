/**
 * The front door of src/sync/: what the rest of the code may import from it.
 */

export type { PendingChange } from "./pending";
export {
  DigestSchema,
  listPending,
  PendingChangeSchema,
  parsePending,
  pendingDigest,
  pendingFrom,
  withDigests,
} from "./pending";
