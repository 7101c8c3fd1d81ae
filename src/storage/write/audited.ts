/**
 * The one audited write behind every admin change, rows and config alike:
 * compare with what is stored, write, and record the change in the key's
 * history. And the one lookup of a version to roll back to.
 */
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../../http";
import { currentVersion, type HistoryDoc, type HistoryEntry, storedValue, valueAt } from "../schemas";
import { canonicalJson } from "./canonical";
import { appendHistory, readHistory } from "./history";
import { withKvRetry } from "./kv-retry";

/** One change to one key, as the caller has read it. */
export interface AuditedChange {
  /** The key written, which names its history (`pricing:gpt-5`, `config:gate`). */
  subject: string;
  /** Who asks: the admin token's name, or "cli:<user>". */
  by: string;
  /** The stored value before (JSON, or its text when it does not parse); null when absent. */
  before: unknown;
  /** The value after; null when the change removes the key. */
  after: unknown;
  /** The history as read before the change. */
  history: HistoryDoc;
  /** Set when the change restores this version: recorded as a rollback, even if nothing differs. */
  rollbackTo?: number | undefined;
}

/** What an audited write did: the key's version after it. */
export interface AuditedOutcome {
  changed: boolean;
  version: number;
}

/**
 * Writes a change and records it, so that a retry after a partial failure
 * finishes the job. The history entry goes first, as a write-ahead record:
 * KV can fail after it, after the row or after an alias key, and the
 * operator is told to retry. A retry finds its own change as the last entry
 * (same value after, and the stored value still the one before it, or
 * already the one after it) and finishes the write without recording it
 * twice. `write` must be idempotent: it brings the stored keys in line with
 * `after` and says whether it had to change anything.
 *
 * Writing the value already stored records nothing, but still repairs the
 * keys that go with it (a row's alias keys).
 *
 * @example
 * await auditedWrite(kv, { subject: "config:gate", by: "ops-alice", before, after: config, history }, async () => { await kv.put("config:gate", text); return true; });
 */
export async function auditedWrite(
  kv: KVNamespace,
  change: AuditedChange,
  write: () => Promise<boolean>,
): Promise<AuditedOutcome> {
  const { subject, by, before, after, history, rollbackTo } = change;
  const last = history.entries.at(-1);
  if (last !== undefined && isRecorded(last, change)) {
    return { changed: await write(), version: last.version };
  }
  if (rollbackTo === undefined && canonicalJson(before) === canonicalJson(after)) {
    return { changed: await write(), version: currentVersion(history) };
  }
  const entry = await appendHistory(kv, subject, history, {
    action: rollbackTo !== undefined ? "rollback" : after === null ? "delete" : "put",
    by,
    before,
    after,
    ...(rollbackTo !== undefined ? { rolled_back_to: rollbackTo } : {}),
  });
  await write();
  return { changed: true, version: entry.version };
}

// Whether the history's last entry records this very change, interrupted or
// finished: a retry of it, not a new change.
function isRecorded(last: HistoryEntry, change: AuditedChange): boolean {
  const after = canonicalJson(change.after);
  if (canonicalJson(last.after) !== after) return false;
  if (change.rollbackTo !== undefined && last.rolled_back_to !== change.rollbackTo) return false;
  const before = canonicalJson(change.before);
  return before === canonicalJson(last.before) || before === after;
}

/** How a rollback names what it restores, in its errors. */
export interface RestoreWording {
  /** The thing restored: "gpt-5", "config:gate". */
  name: string;
  /** What a version holds: "row", "config". */
  noun: string;
  /** Whether a missing version's error lists the versions that can be restored. */
  listRange: boolean;
  /** Appended to the error for a version that does not validate. */
  invalidTail: string;
}

/**
 * The value a key held at `version`, validated by `schema` (null: the key
 * was absent then). Refuses a version the history does not hold (404) or
 * one whose value no longer validates (400).
 *
 * @example
 * const value = restorable(history, 3, PricingRowSchema, { name: "gpt-5", noun: "row", listRange: true, invalidTail: ", so it cannot be restored" });
 */
export function restorable<T>(
  history: HistoryDoc,
  version: number,
  schema: z.ZodType<T>,
  wording: RestoreWording,
): T | null {
  const target = valueAt(history, version);
  if (!target.found) {
    const range =
      target.earliest === null
        ? "it has no history"
        : `versions ${target.earliest}–${currentVersion(history)} can be restored`;
    throw new ApiError(
      "not_found",
      `${wording.name} has no version ${version}${wording.listRange ? `: ${range}` : ""}`,
      [{ path: "version", message: "is not in the history" }],
    );
  }
  if (target.value === null) return null;
  const parsed = schema.safeParse(target.value);
  if (!parsed.success) {
    throw new ApiError(
      "invalid_request",
      `version ${version} of ${wording.name} is not a valid ${wording.noun}${wording.invalidTail}`,
      [{ path: "version", message: `holds an invalid ${wording.noun}` }],
    );
  }
  return parsed.data;
}

/**
 * One audited JSON value under `key`: written, or deleted for null, and
 * recorded in its history; nothing is written when the key already holds
 * `after` (the answer says `changed: false`).
 *
 * @example
 * const { version, changed } = await writeAuditedValue(kv, breakersKey("acme"), { read_file: "closed" }, "ops-alice");
 */
export async function writeAuditedValue(kv: KVNamespace, key: string, after: unknown, by: string, rollbackTo?: number) {
  const [text, history] = await Promise.all([kv.get(key), readHistory(kv, key)]);
  const before = text === null ? null : storedValue(text);
  return auditedWrite(kv, { subject: key, by, before, after, history, rollbackTo }, async () => {
    if (canonicalJson(before) === canonicalJson(after)) return false;
    if (after === null) await withKvRetry(() => kv.delete(key), key);
    else await withKvRetry(() => kv.put(key, JSON.stringify(after)), key);
    return true;
  });
}
