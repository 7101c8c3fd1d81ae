/**
 * The audit history of a KV key, as plain data: its shape, parsing and
 * appending. No I/O, so the ops CLI records its writes the same way the
 * admin API does (storage/write/history.ts reads and writes it in KV).
 */
import { z } from "@hono/zod-openapi";

/** How many changes a key's history keeps; older ones drop off (the earliest kept still records its `before`). */
export const MAX_HISTORY_ENTRIES = 100;

/**
 * How many bytes of JSON a key's history keeps: older entries drop off
 * past it, the newest always stays (a retry finds its write-ahead record
 * there, ../write/audited.ts). A pricing row's entries, a few KB each,
 * keep all 100; an import of replay priors (each entry holds the value
 * before and after) keeps ~5 versions of a 96 KiB one instead of 100 in
 * 19 MB, and every import reads and rewrites at most this.
 */
export const MAX_HISTORY_BYTES = 1_048_576;

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
 * Parses a stored history (null: none yet); undefined when it is corrupt.
 * Plain text in, data out: the CLI uses it too.
 *
 * @example
 * parseHistory(null) // { next_version: 1, entries: [] }
 */
export function parseHistory(text: string | null): HistoryDoc | undefined {
  if (text === null) return EMPTY;
  try {
    const parsed = HistoryDocSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The history with one more change, capped at MAX_HISTORY_ENTRIES and
 * MAX_HISTORY_BYTES, and that change's entry. Pure: the caller stores it.
 *
 * @example
 * const { doc, entry } = withEntry(parseHistory(null)!, { action: "put", by: "cli:ops", before: null, after: row }, new Date());
 */
export function withEntry(
  doc: HistoryDoc,
  change: Omit<HistoryEntry, "version" | "at">,
  at: Date,
): { doc: HistoryDoc; entry: HistoryEntry } {
  const entry: HistoryEntry = { version: doc.next_version, at: at.toISOString(), ...change };
  const entries = [...doc.entries, entry].slice(-MAX_HISTORY_ENTRIES);
  // Newest first, each entry's bytes and its comma, until the next would pass the bound.
  let bytes = 0;
  let from = entries.length;
  while (from > 0) {
    const size = byteLength(JSON.stringify(entries[from - 1])) + 1;
    if (from < entries.length && bytes + size > MAX_HISTORY_BYTES) break;
    bytes += size;
    from--;
  }
  return { doc: { next_version: doc.next_version + 1, entries: entries.slice(from) }, entry };
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string, as KV stores it. */
function byteLength(text: string): number {
  return encoder.encode(text).length;
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
export function valueAt(
  doc: HistoryDoc,
  version: number,
): { found: true; value: unknown } | { found: false; earliest: number | null } {
  const entry = doc.entries.find((candidate) => candidate.version === version);
  if (entry !== undefined) return { found: true, value: entry.after };
  const first = doc.entries[0];
  if (first !== undefined && version === first.version - 1) return { found: true, value: first.before };
  return { found: false, earliest: first === undefined ? null : first.version - 1 };
}
