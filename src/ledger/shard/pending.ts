/**
 * Pending outcomes: an outcome for an authentic decision id (its tag
 * checked by the route, ../model/id-signing.ts) whose decision has not
 * reached this shard yet, most often because it is still in the queue. It
 * waits here and is applied, once, when the decision is stored; it is
 * dropped with the raw window if the decision never comes. A repeat of the
 * same report is accepted again, a different one is a conflict, exactly as
 * for a stored outcome.
 *
 * @module
 */
import type { ItemResult, OutcomeReport } from "../model";

/** Migration 7's table. */
export const PENDING_MIGRATION = `
CREATE TABLE IF NOT EXISTS pending_outcomes (
  decision_id TEXT PRIMARY KEY, at INTEGER NOT NULL, report TEXT NOT NULL, item TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pending_outcomes_at ON pending_outcomes (at);
`;

/**
 * Holds one outcome whose decision is not here yet: accepted and pending
 * (again, when repeated), or a conflict with the one already held.
 *
 * @example
 * holdPending(sql, Date.now(), item, canonicalOutcome(item)) // { status: "accepted", repeated: false, pending: true }
 */
export function holdPending(sql: SqlStorage, at: number, item: OutcomeReport, report: string): ItemResult {
  const held = sql
    .exec<{ report: string }>("SELECT report FROM pending_outcomes WHERE decision_id = ?", item.decision_id)
    .toArray()[0];
  if (held !== undefined) {
    return held.report === report
      ? { status: "accepted", repeated: true, pending: true }
      : { status: "conflict", message: "an outcome with different content was already reported for this decision" };
  }
  sql.exec(
    "INSERT INTO pending_outcomes (decision_id, at, report, item) VALUES (?, ?, ?, ?)",
    item.decision_id,
    at,
    report,
    JSON.stringify(item),
  );
  return { status: "accepted", repeated: false, pending: true };
}

/** A pending outcome taken out to be applied: when it was reported and what. */
export interface TakenPending {
  at: number;
  item: OutcomeReport;
}

/**
 * Takes out the pending outcomes of these decision ids (the ones just
 * stored), to be applied as stored outcomes. A shard with none pending
 * answers from one read of an empty table.
 *
 * @example
 * takePending(sql, ["dec_0_…"]) // [{ at: 1_764_700_000_000, item: { decision_id: "dec_0_…", turns_after: 3, recalled: false } }]
 */
export function takePending(sql: SqlStorage, decisionIds: readonly string[]): TakenPending[] {
  if (decisionIds.length === 0) return [];
  if (sql.exec("SELECT 1 FROM pending_outcomes LIMIT 1").toArray().length === 0) return [];
  const ids = JSON.stringify(decisionIds);
  const rows = sql
    .exec<{ at: number; item: string }>(
      "SELECT at, item FROM pending_outcomes WHERE decision_id IN (SELECT value FROM json_each(?)) ORDER BY at, decision_id",
      ids,
    )
    .toArray();
  if (rows.length > 0)
    sql.exec("DELETE FROM pending_outcomes WHERE decision_id IN (SELECT value FROM json_each(?))", ids);
  return rows.map((row) => ({ at: row.at, item: JSON.parse(row.item) as OutcomeReport }));
}

/**
 * The retention's share: pending outcomes reported before the raw window's
 * start are dropped (their decision, had it come, would be purged by now).
 *
 * @example
 * expirePending(sql, rawFrom)
 */
export function expirePending(sql: SqlStorage, rawFrom: number): void {
  sql.exec("DELETE FROM pending_outcomes WHERE at < ?", rawFrom);
}
