/**
 * Deleting a pending entry by hand: the admin's way out for any entry,
 * readable or not, audited like every other admin change.
 */
import { ApiError } from "../../http";
import { forgetListings } from "..";
import { pendingKey } from "../rules";
import { auditedWrite } from "./audited";
import { readHistory } from "./history";
import { withKvRetry } from "./kv-retry";

/** What deleting a pending entry did. */
export interface PendingDeleted {
  model: string;
  /** The entry as it was stored: JSON, or its text when it does not parse. */
  deleted: unknown;
  version: number;
}

/**
 * Deletes one `pending:<model>` entry, whatever it holds (a pending or
 * rejected change, or a value that no longer parses), recorded in
 * `history:pending:<model>` under the admin's name. The next sync proposes
 * again if the source still differs from KV.
 *
 * @example
 * await deletePending(env.PRICING, "gpt-5", "ops-alice") // { model: "gpt-5", deleted: {...}, version: 1 }
 */
export async function deletePending(kv: KVNamespace, model: string, by: string): Promise<PendingDeleted> {
  const key = pendingKey(model);
  const [text, history] = await Promise.all([kv.get(key), readHistory(kv, key)]);
  if (text === null) throw new ApiError("not_found", `no pending change for ${model}`);
  const before = storedValue(text);
  const outcome = await auditedWrite(kv, { subject: key, by, before, after: null, history }, async () => {
    await withKvRetry(() => kv.delete(key), key);
    return true;
  });
  forgetListings();
  return { model, deleted: before, version: outcome.version };
}

// History records the value as it was: JSON when it parses, else its text.
function storedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
