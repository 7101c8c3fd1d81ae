/**
 * The one audited write behind every admin change, rows and config alike:
 * compare with what is stored, write, and record the change in the key's
 * history. And the one lookup of a version to roll back to.
 */
import type { z } from "@hono/zod-openapi";
import { ApiError } from "../http/errors";
import { currentVersion, valueAt, type HistoryDoc } from "../store/history";
import { canonicalJson } from "./canonical";
import { appendHistory } from "./history";

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
 * Writes a change (through `write`) and records it; writing the value
 * already stored changes nothing and records nothing, unless it is a
 * rollback, which is always recorded.
 *
 * @example
 * await auditedWrite(kv, { subject: "config:gate", by: "ops-alice", before, after: config, history }, () => kv.put("config:gate", text));
 */
export async function auditedWrite(kv: KVNamespace, change: AuditedChange, write: () => Promise<void>): Promise<AuditedOutcome> {
  const { subject, by, before, after, history, rollbackTo } = change;
  if (rollbackTo === undefined && canonicalJson(before) === canonicalJson(after)) {
    return { changed: false, version: currentVersion(history) };
  }
  await write();
  const entry = await appendHistory(kv, subject, history, {
    action: rollbackTo !== undefined ? "rollback" : after === null ? "delete" : "put",
    by,
    before,
    after,
    ...(rollbackTo !== undefined ? { rolled_back_to: rollbackTo } : {}),
  });
  return { changed: true, version: entry.version };
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
export function restorable<T>(history: HistoryDoc, version: number, schema: z.ZodType<T>, wording: RestoreWording): T | null {
  const target = valueAt(history, version);
  if (!target.found) {
    const range = target.earliest === null ? "it has no history" : `versions ${target.earliest}–${currentVersion(history)} can be restored`;
    throw new ApiError("not_found", `${wording.name} has no version ${version}${wording.listRange ? `: ${range}` : ""}`, [
      { path: "version", message: "is not in the history" },
    ]);
  }
  if (target.value === null) return null;
  const parsed = schema.safeParse(target.value);
  if (!parsed.success) {
    throw new ApiError("invalid_request", `version ${version} of ${wording.name} is not a valid ${wording.noun}${wording.invalidTail}`, [
      { path: "version", message: `holds an invalid ${wording.noun}` },
    ]);
  }
  return parsed.data;
}
