/**
 * What the ledger shard writes, inside its transactions: decisions with
 * their rollups and session summaries, outcomes (which update the rollup
 * of their decision's hour), session bills; and the retention's purge of
 * both horizons. ./shard.ts checks the tenant and holds the transaction.
 */

import type { ItemResult, LedgerDecision, OutcomeReport, PricedSession } from "../model";
import { clearedAlone, gateNet, outcomeMismatch, realizedCacheHitRate, realizedNet } from "../model";
import { ADD_OUTCOME_BANDS, PURGE_BANDS } from "./band-sums";
import { ADD_BILL, trimBillHours } from "./bill-hours";
import { KEYS_BEFORE, KEYS_MOVED, KEYS_OF_DECISIONS, type KeysRow, refreshClusters } from "./cluster-spans";
import { expirePending, holdPending } from "./pending";
import { ADD_DECISIONS, ADD_OUTCOME_ROLLUPS, ADD_OUTCOME_SUMMARIES, ADD_SESSION_TOOL, HOUR_MS } from "./rollup-sql";
import { canonicalOutcome, decisionOf } from "./rows";
import { type DecisionRow, INSERT_DECISION, SELECT_DECISION } from "./sql";
import { CHUNKS_BEFORE, CHUNKS_OF_SESSIONS, type ChunkKey, repackChunks, trimChunks } from "./tool-chunks";

const DAY_MS = 86_400_000;
const UNKNOWN = "no decision of this tenant has this id";

/**
 * Stores decisions (a repeated id is ignored) and adds the new ones to
 * their hour's rollup and, with a session, to its (session, tool) summary:
 * one upsert per distinct key of the call, not per decision.
 *
 * @example
 * storeDecisions(sql, decisions, (json) => rowIdOf(json)) // 100
 */
export function storeDecisions(
  sql: SqlStorage,
  decisions: readonly LedgerDecision[],
  rowId: (json: string) => number,
): number {
  const rollups = new Map<string, { key: (string | number)[]; decisions: number; fired: number }>();
  const summaries = new Map<string, { key: (string | number)[]; held: number }>();
  for (const d of decisions) {
    const i = d.inputs;
    const written = sql.exec(
      INSERT_DECISION,
      d.decision_id,
      d.at,
      d.session_id,
      d.tool_name,
      d.model_name,
      d.priced_as,
      d.pricing_mode,
      d.reason_code,
      d.fire ? 1 : 0,
      d.would_fire ? 1 : 0,
      d.holdout ? 1 : 0,
      d.predicted_net_usd,
      i.output_tokens,
      i.horizon,
      i.recall_probability,
      i.cache_hit_rate,
      i.context_tokens,
      i.stub_tokens,
      i.recall_input_tokens,
      i.recall_output_tokens,
      d.row === null ? null : rowId(JSON.stringify(d.row)),
      i.offload_at ?? null,
      i.suffix_tokens ?? null,
      i.cache_ttl ?? null,
      d.plan === undefined ? null : JSON.stringify(d.plan),
      i.recall_placement === "in_place" ? "in_place" : null,
    ).rowsWritten;
    if (written === 0) continue;
    const hour = d.at - (d.at % HOUR_MS);
    const [tool, priced] = [d.tool_name ?? "", d.priced_as ?? ""];
    const key = [hour, tool, d.model_name, priced, d.holdout ? 1 : 0];
    const held = rollups.get(JSON.stringify(key)) ?? { key, decisions: 0, fired: 0 };
    held.decisions += 1;
    held.fired += d.fire ? 1 : 0;
    rollups.set(JSON.stringify(key), held);
    if (d.session_id !== null) {
      const skey = [d.session_id, tool, d.model_name, priced, hour];
      const summary = summaries.get(JSON.stringify(skey)) ?? { key: skey, held: 0 };
      summary.held = Math.max(summary.held, d.holdout ? 1 : 0);
      summaries.set(JSON.stringify(skey), summary);
    }
  }
  let recorded = 0;
  for (const r of rollups.values()) {
    sql.exec(ADD_DECISIONS, ...r.key, r.decisions, r.fired);
    recorded += r.decisions;
  }
  for (const s of summaries.values()) sql.exec(ADD_SESSION_TOOL, ...s.key, s.held);
  if (summaries.size > 0) {
    const keys = JSON.stringify([...new Set([...summaries.values()].map((s) => s.key[0]))]);
    refreshClusters(
      sql,
      sql.exec<KeysRow>(KEYS_MOVED, JSON.stringify([...summaries.values()].map((s) => [s.key[0], s.key[4]]))).one()
        .keys,
    );
    // A session billed already gains a pair, or its arm, in its bill's chunk.
    repackChunks(sql, sql.exec<ChunkKey>(CHUNKS_OF_SESSIONS, keys));
  }
  return recorded;
}

/**
 * Stores outcomes, one result per item in order: accepted (again, for the
 * same report repeated), unknown_decision, conflict or invalid. The new ones
 * are added to their decisions' hours' rollups and (session, tool)
 * summaries, in one statement each for the whole call.
 *
 * @example
 * storeOutcomes(sql, Date.now(), [{ decision_id, turns_after: 4, recalled: false }]) // [{ status: "accepted", repeated: false }]
 */
export function storeOutcomes(
  sql: SqlStorage,
  at: number,
  items: readonly OutcomeReport[],
  pendable: ReadonlySet<string> = NONE,
): ItemResult[] {
  const stored: string[] = [];
  const results = items.map((item) => {
    const result = storeOutcome(sql, at, item, pendable.has(item.decision_id));
    if (result.status === "accepted" && result.repeated === false) stored.push(item.decision_id);
    return result;
  });
  if (stored.length > 0) {
    const ids = JSON.stringify(stored);
    sql.exec(ADD_OUTCOME_ROLLUPS, ids);
    sql.exec(ADD_OUTCOME_BANDS, ids);
    sql.exec(ADD_OUTCOME_SUMMARIES, ids);
    refreshClusters(sql, sql.exec<KeysRow>(KEYS_OF_DECISIONS, ids).one().keys);
  }
  return results;
}

const NONE: ReadonlySet<string> = new Set();

// `pendable`: the id is authentic (its tag checked by the route), so an outcome before its decision waits (./pending.ts).
function storeOutcome(sql: SqlStorage, at: number, item: OutcomeReport, pendable: boolean): ItemResult {
  const report = canonicalOutcome(item);
  const held = sql
    .exec<{ report: string }>("SELECT report FROM outcomes WHERE decision_id = ?", item.decision_id)
    .toArray()[0];
  if (held !== undefined) {
    return held.report === report
      ? { status: "accepted", repeated: true }
      : { status: "conflict", message: "an outcome with different content was already reported for this decision" };
  }
  const found = sql.exec<DecisionRow>(SELECT_DECISION, item.decision_id).toArray()[0];
  if (found === undefined) {
    if (!pendable) return { status: "unknown_decision", message: UNKNOWN };
    // What can be judged without the decision is judged now; the rest when it arrives (a mismatch is then dropped).
    const alone = clearedAlone(item);
    return alone === null ? holdPending(sql, at, item, report) : invalid(alone);
  }
  const decision = decisionOf(found);
  const mismatch = outcomeMismatch(decision, item);
  if (mismatch !== null) return invalid(mismatch);
  sql.exec(
    "INSERT INTO outcomes (decision_id, at, report, turns_after, recalled, recalled_high, q_hat, realized_net, gate_net) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    item.decision_id,
    at,
    report,
    item.turns_after,
    item.recalled ? 1 : 0,
    // NULL when not sent: the reads take it as `recalled` (a range of one point).
    item.recalled_high === undefined ? null : item.recalled_high ? 1 : 0,
    realizedCacheHitRate(item),
    realizedNet(decision, item),
    gateNet(decision, item),
  );
  return { status: "accepted", repeated: false };
}

/**
 * Stores session bills, one result per item (as storeSession), then packs
 * the chunks of the new bills' pairs again.
 *
 * @example
 * storeSessions(sql, Date.now(), [priced]) // [{ status: "accepted", repeated: false }]
 */
export function storeSessions(sql: SqlStorage, at: number, items: readonly PricedSession[]): ItemResult[] {
  const results = items.map((item) => storeSession(sql, at, item));
  const stored = items
    .filter((_, i) => results[i]?.status === "accepted" && results[i]?.repeated === false)
    .map((item) => item.session_id);
  if (stored.length > 0) repackChunks(sql, sql.exec<ChunkKey>(CHUNKS_OF_SESSIONS, JSON.stringify(stored)));
  return results;
}

/**
 * Stores one session bill: accepted (again, when repeated) or conflict.
 *
 * @example
 * storeSession(sql, Date.now(), priced) // { status: "accepted", repeated: false }
 */
export function storeSession(sql: SqlStorage, at: number, item: PricedSession): ItemResult {
  const held = sql
    .exec<{ report: string }>("SELECT report FROM sessions WHERE session_id = ?", item.session_id)
    .toArray()[0];
  if (held !== undefined) {
    return held.report === item.report
      ? { status: "accepted", repeated: true }
      : { status: "conflict", message: "a session with this id was already reported with different content" };
  }
  // A session has no arm of its own: each (session, tool) pair has, on its decisions. The column stays 0.
  sql.exec(
    "INSERT INTO sessions (session_id, at, report, model_name, priced_as, cost, holdout, covariate, missed_after_rewrite, missed_other) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)",
    item.session_id,
    at,
    item.report,
    item.model_name,
    item.priced_as,
    item.cost_usd,
    item.covariate ?? null,
    item.cache_misses?.after_gate_rewrite ?? null,
    item.cache_misses?.other ?? null,
  );
  sql.exec(ADD_BILL, at, item.model_name, item.priced_as, item.cost_usd);
  return { status: "accepted", repeated: false };
}

/**
 * The retention's purge, both horizons: raw decisions and outcomes before
 * the raw window's first whole hour; rollups and summaries of hours wholly
 * past the retention; bills older than it; pricing rows no decision refers
 * to. Answers the hour raw rows are kept from now (meta `raw_from`).
 *
 * @example
 * purge(sql, Date.now(), 30, 2) // the start of the hour two days ago
 */
export function purge(sql: SqlStorage, now: number, retentionDays: number, rawDays: number): number {
  const cutoff = now - retentionDays * DAY_MS;
  const hours = cutoff - (cutoff % HOUR_MS);
  const rawCut = now - Math.min(rawDays, retentionDays) * DAY_MS;
  // Raw rows are whole only after every purge so far: a raw window raised later cannot bring back what went.
  const before = Number(
    sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'raw_from'").toArray()[0]?.value ?? 0,
  );
  const rawFrom = Math.max(before, rawCut - (rawCut % HOUR_MS));
  sql.exec("DELETE FROM outcomes WHERE decision_id IN (SELECT id FROM decisions WHERE at < ?)", rawFrom);
  sql.exec("DELETE FROM decisions WHERE at < ?", rawFrom);
  expirePending(sql, rawFrom);
  sql.exec("DELETE FROM rollups WHERE hour < ?", hours);
  sql.exec(PURGE_BANDS, hours);
  const purged = sql.exec<KeysRow>(KEYS_BEFORE, hours).one().keys;
  const chunks = sql.exec<ChunkKey>(CHUNKS_BEFORE, hours).toArray();
  sql.exec("DELETE FROM session_tools WHERE hour < ?", hours);
  refreshClusters(sql, purged);
  sql.exec("DELETE FROM sessions WHERE at < ?", cutoff);
  trimBillHours(sql, cutoff);
  trimChunks(sql, cutoff);
  repackChunks(sql, chunks);
  sql.exec("DELETE FROM price_rows WHERE id NOT IN (SELECT row_id FROM decisions WHERE row_id IS NOT NULL)");
  sql.exec("INSERT OR REPLACE INTO meta (key, value) VALUES ('raw_from', ?)", String(rawFrom));
  return rawFrom;
}

const invalid = (issue: { path: string; message: string }): ItemResult => ({
  status: "invalid",
  issues: [issue],
  message: `${issue.path} ${issue.message}`,
});
