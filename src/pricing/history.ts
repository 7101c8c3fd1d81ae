import { ApiError } from "../http/errors";
import { historyKey, parseHistory, withEntry, type HistoryDoc, type HistoryEntry } from "./history-doc";
import { withKvRetry } from "./kv-retry";

export * from "./history-doc";

/**
 * Reads a key's history. A history that does not parse is a fault, reported
 * rather than overwritten.
 *
 * @example
 * const doc = await readHistory(env.PRICING, "pricing:gpt-5");
 */
export async function readHistory(kv: KVNamespace, subject: string): Promise<HistoryDoc> {
  const doc = parseHistory(await kv.get(historyKey(subject)));
  if (doc === undefined) throw new ApiError("internal", `${historyKey(subject)} is corrupt; fix or delete it before writing ${subject}`);
  return doc;
}

/**
 * Appends one change to a key's history (given the history read before the
 * change) and returns the entry with its version.
 *
 * @example
 * await appendHistory(kv, "pricing:gpt-5", doc, { action: "put", by: "ops-alice", before, after });
 */
export async function appendHistory(
  kv: KVNamespace,
  subject: string,
  doc: HistoryDoc,
  change: Omit<HistoryEntry, "version" | "at">,
): Promise<HistoryEntry> {
  const next = withEntry(doc, change, new Date());
  await withKvRetry(() => kv.put(historyKey(subject), JSON.stringify(next.doc)), historyKey(subject));
  return next.entry;
}
