import { z } from "@hono/zod-openapi";
import { ApiError } from "../http/errors";
import { withKvRetry } from "./kv-retry";

/** KV key of the audit history of one KV key (`pricing:<model>`, `config:gate`). */
export const historyKey = (subject: string) => `history:${subject}`;

/** How many changes a key's history keeps; older ones drop off (the earliest kept still records its `before`). */
export const MAX_HISTORY_ENTRIES = 100;

/** One change to one key: who made it, when, and the value before and after (null: absent). */
export const HistoryEntrySchema = z
  .object({
    version: z.number().int().positive(),
    action: z.enum(["put", "delete", "rollback"]),
    by: z.string(),
    at: z.string().openapi({ example: "2026-11-30T05:01:02.345Z" }),
    before: z.unknown().nullable(),
    after: z.unknown().nullable(),
    rolled_back_to: z.number().int().nonnegative().optional(),
  })
  .openapi("HistoryEntry");

export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

const HistoryDocSchema = z.object({
  next_version: z.number().int().positive(),
  entries: z.array(HistoryEntrySchema),
});

/** A key's stored history, oldest change first. */
export type HistoryDoc = z.infer<typeof HistoryDocSchema>;

const EMPTY: HistoryDoc = { next_version: 1, entries: [] };

/**
 * Reads a key's history. A history that does not parse is a fault, reported
 * rather than overwritten.
 *
 * @example
 * const doc = await readHistory(env.PRICING, "pricing:gpt-5");
 */
export async function readHistory(kv: KVNamespace, subject: string): Promise<HistoryDoc> {
  const text = await kv.get(historyKey(subject));
  if (text === null) return EMPTY;
  let parsed: ReturnType<typeof HistoryDocSchema.safeParse>;
  try {
    parsed = HistoryDocSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = { success: false } as ReturnType<typeof HistoryDocSchema.safeParse>;
  }
  if (!parsed.success) throw new ApiError("internal", `${historyKey(subject)} is corrupt; fix or delete it before writing ${subject}`);
  return parsed.data;
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
  const entry: HistoryEntry = { version: doc.next_version, at: new Date().toISOString(), ...change };
  const next: HistoryDoc = {
    next_version: doc.next_version + 1,
    entries: [...doc.entries, entry].slice(-MAX_HISTORY_ENTRIES),
  };
  await withKvRetry(() => kv.put(historyKey(subject), JSON.stringify(next)), historyKey(subject));
  return entry;
}

/** The current version of a key: the last change's, or 0 before any. */
export function currentVersion(doc: HistoryDoc): number {
  return doc.next_version - 1;
}

/**
 * The value a key held at `version`: the value after that change, or, for
 * the version just before the earliest change kept (0 for a full history),
 * that change's `before`.
 *
 * @example
 * valueAt(doc, 0) // { found: true, value: <the row before the first recorded change> }
 */
export function valueAt(doc: HistoryDoc, version: number): { found: true; value: unknown } | { found: false; earliest: number | null } {
  const entry = doc.entries.find((candidate) => candidate.version === version);
  if (entry !== undefined) return { found: true, value: entry.after };
  const first = doc.entries[0];
  if (first !== undefined && version === first.version - 1) return { found: true, value: first.before };
  return { found: false, earliest: first === undefined ? null : first.version - 1 };
}
