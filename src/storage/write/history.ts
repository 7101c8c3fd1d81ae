import { ApiError } from "../../http";
import { historyKey } from "../rules";
import { currentVersion, type HistoryDoc, type HistoryEntry, parseHistory, withEntry } from "../schemas";
import { withKvRetry } from "./kv-retry";

/**
 * Reads a key's history. A history that does not parse is a fault, reported
 * rather than overwritten.
 *
 * @example
 * const doc = await readHistory(env.PRICING, "pricing:gpt-5");
 */
export async function readHistory(kv: KVNamespace, subject: string): Promise<HistoryDoc> {
  const doc = parseHistory(await kv.get(historyKey(subject)));
  if (doc === undefined)
    throw new ApiError("internal", `${historyKey(subject)} is corrupt; fix or delete it before writing ${subject}`);
  return doc;
}

/**
 * A key's current version for a read that must not fail on a corrupt
 * history: the version, or null and what is wrong.
 *
 * @example
 * await historyVersion(env.PRICING, "pricing:gpt-5") // { version: 3, problem: null }
 */
export async function historyVersion(
  kv: KVNamespace,
  subject: string,
): Promise<{ version: number | null; problem: string | null }> {
  const doc = parseHistory(await kv.get(historyKey(subject)));
  if (doc === undefined)
    return { version: null, problem: `${historyKey(subject)} is corrupt; fix or delete it before writing ${subject}` };
  return { version: currentVersion(doc), problem: null };
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

/** A key's history as the admin API shows it: newest first, with what can be restored. */
export interface HistoryView {
  subject: string;
  current_version: number;
  earliest_restorable: number | null;
  versions: HistoryEntry[];
}

/**
 * Reads a key's history for the admin API.
 *
 * @example
 * await readHistoryView(env.PRICING, "config:gate") // { subject: "config:gate", current_version: 2, earliest_restorable: 0, versions: [...] }
 */
export async function readHistoryView(kv: KVNamespace, subject: string): Promise<HistoryView> {
  const history = await readHistory(kv, subject);
  const first = history.entries[0];
  return {
    subject,
    current_version: currentVersion(history),
    earliest_restorable: first === undefined ? null : first.version - 1,
    versions: [...history.entries].reverse(),
  };
}
