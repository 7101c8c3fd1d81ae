import type { ToolSessionRow } from "../model";
import { type CacheMissSums, emptySums, type LedgerSums, type ToolRecallRange } from "../stats";
import {
  CACHE_MISS_SUMS,
  CLUSTER_SUMS,
  CLUSTER_SUMS_END,
  DECISION_SUMS,
  decisionWhere,
  OBSERVED_RECALL_BY_TOOL,
  SERIES_SUMS,
  SESSION_SUMS,
  type SeriesSqlRow,
  type SumsFilter,
  type SumsRow,
  sessionWhere,
  TOOL_SESSIONS,
  TOOL_SESSIONS_GROUP,
  type ToolSessionSqlRow,
  toolSessionWhere,
} from "./sql";

/**
 * The ledger's figures over raw rows alone: the computation the shard ran
 * before rollups, kept as the reference the rollups must equal
 * (test/ledger/ledger-rollup.test.ts) and that the ledger benchmark times beside
 * them. The shard itself reads ./rollup-reads.ts.
 */

type Row = SumsRow;

/**
 * LedgerSums from the three one-row aggregates (decisions, clusters, bills),
 * whichever tables they were summed from; the series is left empty.
 *
 * @example
 * sumsOf(sql.exec(DECISION_SUMS + where).one(), clusterRow, billedRow).decisions
 */
export function sumsOf(row: Row, c: Row, billed: Row): LedgerSums {
  const num = (key: string, from: Row = row) => from[key] ?? 0;
  const sums = emptySums();
  Object.assign(sums, {
    decisions: num("decisions"),
    fired: num("fired"),
    holdout_decisions: num("holdout_decisions"),
    outcomes: num("outcomes"),
    fired_with_outcome: num("fired_with_outcome"),
    predicted_net_usd: num("predicted"),
    realized_net_usd: num("realized"),
    gap: { n: num("fired_with_outcome"), sum: num("realized") - num("predicted"), sumsq: num("gap_sumsq") },
    recalled: num("recalled"),
    prior_recall_sum: num("prior_recall_sum"),
    observed_recall: { n: num("observed_n"), low: num("observed_low"), high: num("observed_high") },
    horizon: { n: num("outcomes"), sum: num("horizon_sum"), sumsq: num("horizon_sumsq") },
    prior_horizon_sum: num("prior_horizon_sum"),
    cache_hit_rate: { n: num("cache_n"), sum: num("cache_sum"), sumsq: num("cache_sumsq") },
    prior_cache_hit_rate_sum: num("prior_cache_sum"),
    missed_decisions: num("missed_decisions"),
    missed_savings_usd: num("missed_usd"),
  });
  sums.sessions = { n: num("n", billed), sum: num("sum", billed), sumsq: num("sumsq", billed) };
  const cluster = (k: string) => ({
    clusters: num(`${k}_g`, c),
    cs2: num(`${k}_cs2`, c),
    ncs: num(`${k}_ncs`, c),
    n2: num(`${k}_n2`, c),
  });
  sums.clusters = {
    gap: cluster("gap"),
    horizon: cluster("hor"),
    cache_hit_rate: cluster("q"),
    recall: cluster("rec"),
  };
  return sums;
}

/**
 * One shard's sums for the savings report over raw rows, scanning the window.
 *
 * @example
 * readRawSums(ctx.storage.sql, { from, to, tool_name: "grep" }, 60_000).decisions
 */
export function readRawSums(sql: SqlStorage, filter: SumsFilter, bucketMs: number): LedgerSums {
  const d = decisionWhere(filter);
  const s = sessionWhere(filter);
  const row = sql.exec<SumsRow>(DECISION_SUMS + d.where, ...d.bindings).one();
  const billed = sql.exec<SumsRow>(SESSION_SUMS + s.where, ...s.bindings).one();
  const c = sql.exec<SumsRow>(CLUSTER_SUMS + d.where + CLUSTER_SUMS_END, ...d.bindings).one();
  const sums = sumsOf(row, c, billed);
  sums.observed_recall_by_tool = sql
    .exec<ToolRecallRange>(
      `${OBSERVED_RECALL_BY_TOOL}${d.where} GROUP BY d.tool_name HAVING n > 0 ORDER BY d.tool_name`,
      ...d.bindings,
    )
    .toArray()
    .map(({ tool_name, n, low, high }) => ({ tool_name, n, low, high }));
  sums.cache_misses = readCacheMisses(sql, filter);
  sums.series = sql
    .exec<SeriesSqlRow>(`${SERIES_SUMS}${d.where} GROUP BY start ORDER BY start`, bucketMs, ...d.bindings)
    .toArray()
    .map((b) => ({
      start: b.start,
      decisions: b.decisions,
      fired: b.fired,
      fired_with_outcome: b.fired_with_outcome,
      predicted_net_usd: b.predicted,
      realized_net_usd: b.realized,
    }));
  return sums;
}

/**
 * One row per (session with a bill in the window, tool with a decision in
 * that session): the tool's arm there and the session's priced cost.
 *
 * @example
 * readRawToolSessions(ctx.storage.sql, { from, to }) // [{ tool_name: "grep", session_id: "s1", at, treated: true, cost: 2.5 }, ...]
 */
export function readRawToolSessions(sql: SqlStorage, filter: SumsFilter): ToolSessionRow[] {
  const w = toolSessionWhere(filter);
  return sql
    .exec<ToolSessionSqlRow>(TOOL_SESSIONS + w.where + TOOL_SESSIONS_GROUP, ...w.bindings)
    .toArray()
    .map(toolSessionOf);
}

/**
 * A (session, tool) pair as the verdicts and the breaker read it, from its SQL row: the covariate
 * set only when the session reported one, so a pair without is what it always was.
 *
 * @example
 * toolSessionOf({ tool_name: "grep", session_id: "s1", at: 1, held: 0, cost: 2.5, covariate: null }).treated // true
 */
export function toolSessionOf(row: ToolSessionSqlRow): ToolSessionRow {
  const pair: ToolSessionRow = {
    tool_name: row.tool_name,
    session_id: row.session_id,
    at: row.at,
    treated: row.held !== 1,
    cost: row.cost,
  };
  if (row.covariate !== null && row.covariate !== undefined) pair.covariate = row.covariate;
  return pair;
}

/**
 * The diagnosed cache misses of the bills in the window (of the model, and for a tool, of sessions
 * with a decision about it): read bill by bill, like a tool's bill moments.
 *
 * @example
 * readCacheMisses(ctx.storage.sql, { from, to }) // { sessions: 3, after_gate_rewrite: 42_000, other: 8_000 }
 */
export function readCacheMisses(sql: SqlStorage, filter: SumsFilter): CacheMissSums {
  const s = sessionWhere(filter);
  const row = sql
    .exec<{ sessions: number; after_gate_rewrite: number; other: number }>(CACHE_MISS_SUMS + s.where, ...s.bindings)
    .one();
  return { sessions: row.sessions, after_gate_rewrite: row.after_gate_rewrite, other: row.other };
}
