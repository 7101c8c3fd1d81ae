/**
 * The shard's reads over its rollups (docs/ledger/rollups.md): whole
 * hours from the hourly rollups and the per-(session, tool) summaries, the
 * hours a window only partly covers from raw rows (./window.ts). They give
 * what ./raw-reads.ts gives over raw rows alone; test/ledger/ledger-rollup.test.ts
 * shows it.
 */

import type { LedgerSums, SeriesBucket, ToolRecallRange } from "../stats";
import { readBillMoments } from "./bill-hours";
import { unfilteredClusters } from "./cluster-spans";
import type { LearningSumsRow, ToolModelSums, ToolNetRow, ToolNetSqlRow } from "./learning-sums";
import { toolModelSumsOf, toolNetOf } from "./learning-sums";
import { readCacheMisses, sumsOf } from "./raw-reads";
import {
  CLUSTER_TOTALS,
  DECISION_COLUMNS,
  GATE_NET_SUMS,
  HOUR_MS,
  OUTCOME_COLUMNS,
  ROLLUP_KEY,
  rollupSelect,
  SUMMARY_SUMS,
} from "./rollup-sql";
import { decisionWhere, SERIES_SUMS, type SeriesSqlRow, type SumsFilter, type SumsRow, whereOf } from "./sql";
import { planWindow, type WindowPlan } from "./window";

type Bindings = (string | number)[];
type Row = SumsRow;

const ROLLUP_COLUMNS = [
  ...Object.keys(ROLLUP_KEY),
  ...Object.keys(DECISION_COLUMNS),
  ...Object.keys(OUTCOME_COLUMNS),
].join(", ");

/** The filter's conditions on rollup or summary rows (bare columns; '' keys never match a name). */
function keyFilter(filter: SumsFilter): { where: string; bindings: Bindings } {
  let where = "";
  const bindings: Bindings = [];
  if (filter.tool_name !== undefined) {
    where += " AND tool_name = ? AND tool_name <> ''";
    bindings.push(filter.tool_name);
  }
  if (filter.model !== undefined) {
    where += " AND (model_name = ? OR (priced_as = ? AND priced_as <> ''))";
    bindings.push(filter.model, filter.model);
  }
  return { where, bindings };
}

/** The filter's conditions on raw decisions `d` in one range. */
function rawFilter(filter: SumsFilter, range: { from: number; to: number }) {
  const { from: _from, to: _to, ...rest } = filter;
  return decisionWhere({ ...rest, from: range.from, to: range.to });
}

/** Rollup rows for a plan: the table's whole hours, then raw rows of the partial hours in the same shape. */
function rollupRows(plan: WindowPlan, filter: SumsFilter): { sql: string; bindings: Bindings } {
  const k = keyFilter(filter);
  const parts = [`SELECT ${ROLLUP_COLUMNS} FROM rollups WHERE hour >= ? AND hour < ?${k.where}`];
  const bindings: Bindings = [plan.hours.from, plan.hours.to, ...k.bindings];
  for (const range of plan.raw) {
    const r = rawFilter(filter, range);
    parts.push(rollupSelect(r.where));
    bindings.push(...r.bindings);
  }
  return { sql: parts.join(" UNION ALL "), bindings };
}

/** Summary rows (cluster sums) for a plan: the table's whole hours, then raw decisions of the partial hours. */
function summaryRows(
  plan: WindowPlan,
  filter: SumsFilter,
  columns: string,
  rawColumns: string,
): { sql: string; bindings: Bindings } {
  const k = keyFilter(filter);
  const parts = [`SELECT ${columns} FROM session_tools WHERE hour >= ? AND hour < ?${k.where}`];
  const bindings: Bindings = [plan.hours.from, plan.hours.to, ...k.bindings];
  for (const range of plan.raw) {
    const r = rawFilter(filter, range);
    parts.push(`SELECT ${rawColumns} FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id WHERE ${r.where}`);
    bindings.push(...r.bindings);
  }
  return { sql: parts.join(" UNION ALL "), bindings };
}

const CLUSTER_COLUMNS = "session_key AS cluster, g_n, g_s, r_s, h_n, h_s, q_n, q_s";
const RAW_CLUSTER_COLUMNS = `COALESCE(d.session_id, d.id) AS cluster, ${[
  "g_n",
  "g_s",
  "r_s",
  "h_n",
  "h_s",
  "q_n",
  "q_s",
]
  .map((n) => `${SUMMARY_SUMS[n as keyof typeof SUMMARY_SUMS]} AS ${n}`)
  .join(", ")}`;

/**
 * One shard's sums for the savings report, as ./raw-reads.ts's rawSums
 * gives them over raw rows: whole hours from rollups, partial hours from
 * raw rows, the bills (kept for the retention) over their own times.
 *
 * @example
 * readSums(ctx.storage.sql, { from, to }, 3_600_000, rawFrom).realized_net_usd
 */
export function readSums(sql: SqlStorage, filter: SumsFilter, bucketMs: number, rawFrom: number): LedgerSums {
  const plan = planWindow(filter.from, filter.to, rawFrom);
  const rows = rollupRows(plan, filter);
  const d = sql
    .exec<SumsRow>(
      `SELECT TOTAL(decisions) AS decisions, TOTAL(fired) AS fired, TOTAL(CASE WHEN holdout = 1 THEN decisions END) AS holdout_decisions,
    TOTAL(outcomes) AS outcomes, TOTAL(fwo) AS fired_with_outcome, TOTAL(fwo_predicted) AS predicted, TOTAL(fwo_realized) AS realized,
    TOTAL(fwo_gap_sumsq) AS gap_sumsq, TOTAL(fwo_recalled) AS recalled, TOTAL(fwo_prior_recall) AS prior_recall_sum,
    TOTAL(obs_fwo) AS observed_n, TOTAL(obs_recalled) AS observed_low, TOTAL(obs_recalled_high) AS observed_high,
    TOTAL(horizon_sum) AS horizon_sum, TOTAL(horizon_sumsq) AS horizon_sumsq, TOTAL(prior_horizon_sum) AS prior_horizon_sum,
    TOTAL(cache_n) AS cache_n, TOTAL(cache_sum) AS cache_sum, TOTAL(cache_sumsq) AS cache_sumsq, TOTAL(prior_cache_sum) AS prior_cache_sum,
    TOTAL(missed_n) AS missed_decisions, TOTAL(missed_usd) AS missed_usd FROM (${rows.sql})`,
      ...rows.bindings,
    )
    .one();
  const clusters = readClusters(sql, plan, filter);
  const billed = readBilled(sql, filter);
  const sums = sumsOf(d, clusters, billed);
  sums.observed_recall_by_tool = sql
    .exec<ToolRecallRange>(
      `SELECT tool_name, TOTAL(obs_fwo) AS n, TOTAL(obs_recalled) AS low, TOTAL(obs_recalled_high) AS high
    FROM (${rows.sql}) GROUP BY tool_name HAVING n > 0 ORDER BY tool_name`,
      ...rows.bindings,
    )
    .toArray()
    .map(({ tool_name, n, low, high }) => ({ tool_name, n, low, high }));
  sums.cache_misses = readCacheMisses(sql, filter);
  sums.series = readSeries(sql, filter, plan, bucketMs, rawFrom);
  return sums;
}

/**
 * The clustered intervals' sums: unfiltered, from the per-span totals and
 * the sessions across the window's edges (./cluster-spans.ts); for a tool
 * or a model, grouped by session from every summary row in the window.
 */
function readClusters(sql: SqlStorage, plan: WindowPlan, filter: SumsFilter): Row {
  if (filter.tool_name === undefined && filter.model === undefined) {
    const raw = plan.raw.map((range) => {
      const r = rawFilter(filter, range);
      return {
        sql: `SELECT ${RAW_CLUSTER_COLUMNS} FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id WHERE ${r.where}`,
        bindings: r.bindings,
      };
    });
    return unfilteredClusters(sql, plan.hours.from, plan.hours.to, raw);
  }
  const c = summaryRows(plan, filter, CLUSTER_COLUMNS, RAW_CLUSTER_COLUMNS);
  return sql
    .exec<SumsRow>(
      `${CLUSTER_TOTALS}(SELECT cluster, TOTAL(g_n) AS g_n, TOTAL(g_s) AS g_s, TOTAL(r_s) AS r_s, TOTAL(h_n) AS h_n,
    TOTAL(h_s) AS h_s, TOTAL(q_n) AS q_n, TOTAL(q_s) AS q_s FROM (${c.sql}) GROUP BY cluster)`,
      ...c.bindings,
    )
    .one();
}

/** A session of the model, as requested or priced. */
export const SESSION_MODEL = "(s.model_name = ? OR s.priced_as = ?)";

/** The bills of sessions in the window, of the model, and, for a tool, with a decision about it (in any hour). */
const billWhere = (filter: SumsFilter) =>
  whereOf(
    filter,
    "s.at",
    "EXISTS (SELECT 1 FROM session_tools t WHERE t.session_key = s.session_id AND t.solo = 0 AND t.tool_name = ? AND t.tool_name <> '')",
    SESSION_MODEL,
  );

/** The bills' moments: from the hourly bill sums, or for a tool, bill by bill (a session counts when it had a decision about it). */
function readBilled(sql: SqlStorage, filter: SumsFilter): Row {
  if (filter.tool_name === undefined) return readBillMoments(sql, filter.from, filter.to, filter.model);
  const b = billWhere(filter);
  return sql.exec<SumsRow>(SUMMARY_SESSION_SUMS + b.where, ...b.bindings).one();
}

const SUMMARY_SESSION_SUMS =
  "SELECT COUNT(*) AS n, TOTAL(s.cost) AS sum, TOTAL(s.cost * s.cost) AS sumsq FROM sessions s WHERE ";

const bucketOf = (b: SeriesSqlRow): SeriesBucket => ({
  start: b.start,
  decisions: b.decisions,
  fired: b.fired,
  fired_with_outcome: b.fired_with_outcome,
  predicted_net_usd: b.predicted,
  realized_net_usd: b.realized,
});

/**
 * The series: buckets of an hour or more from the rollup rows; narrower
 * ones from raw rows where they are kept, and one point per hour (at its
 * start) for hours whose raw rows are gone.
 */
function readSeries(
  sql: SqlStorage,
  filter: SumsFilter,
  plan: WindowPlan,
  bucketMs: number,
  rawFrom: number,
): SeriesBucket[] {
  const totals =
    "TOTAL(decisions) AS decisions, TOTAL(fired) AS fired, TOTAL(fwo) AS fired_with_outcome, TOTAL(fwo_predicted) AS predicted, TOTAL(fwo_realized) AS realized";
  if (bucketMs >= HOUR_MS && bucketMs % HOUR_MS === 0) {
    const rows = rollupRows(plan, filter);
    return sql
      .exec<SeriesSqlRow>(
        `SELECT hour - hour % ? AS start, ${totals} FROM (${rows.sql}) GROUP BY start ORDER BY start`,
        bucketMs,
        ...rows.bindings,
      )
      .toArray()
      .map(bucketOf);
  }
  const series: SeriesBucket[] = [];
  const coarse = {
    hours: { from: plan.hours.from, to: Math.min(plan.hours.to, Math.max(plan.hours.from, rawFrom)) },
    raw: [],
  };
  if (coarse.hours.from < coarse.hours.to) {
    const rows = rollupRows(coarse, filter);
    series.push(
      ...sql
        .exec<SeriesSqlRow>(
          `SELECT hour AS start, ${totals} FROM (${rows.sql}) GROUP BY start ORDER BY start`,
          ...rows.bindings,
        )
        .toArray()
        .map(bucketOf),
    );
  }
  const from = Math.max(filter.from, rawFrom);
  if (from < filter.to) {
    const d = decisionWhere({ ...filter, from });
    series.push(
      ...sql
        .exec<SeriesSqlRow>(`${SERIES_SUMS}${d.where} GROUP BY start ORDER BY start`, bucketMs, ...d.bindings)
        .toArray()
        .map(bucketOf),
    );
  }
  return series;
}

/**
 * The learner's sums per (tool, model) over a window of decision times, as
 * LEARNING_SUMS gives them over raw rows.
 *
 * @example
 * readLearningSums(ctx.storage.sql, from, to, rawFrom) // [{ tool: "read_file", model: "claude-opus-4-6", sums }]
 */
export function readLearningSums(sql: SqlStorage, from: number, to: number, rawFrom: number): ToolModelSums[] {
  const rows = rollupRows(planWindow(from, to, rawFrom), { from, to });
  return sql
    .exec<LearningSumsRow>(
      `SELECT NULLIF(tool_name, '') AS tool, COALESCE(NULLIF(priced_as, ''), model_name) AS model,
      TOTAL(fired_outcomes) AS p_n, TOTAL(fired_recalled) AS p_r, TOTAL(outcomes) AS h_n, TOTAL(horizon_sum) AS h_sum,
      TOTAL(horizon_sumsq) AS h_sumsq, TOTAL(cached_n) AS q_n, TOTAL(cached_turns) AS q_cached, TOTAL(cached_turns_after) AS q_turns
      FROM (${rows.sql}) GROUP BY tool, model HAVING TOTAL(outcomes) > 0`,
      ...rows.bindings,
    )
    .toArray()
    .map(toolModelSumsOf);
}

/**
 * Per (tool, session), the summed net (as the gate priced each) of fired decisions with an
 * outcome in the window, as TOOL_NETS gives it over raw rows.
 *
 * @example
 * readToolNets(ctx.storage.sql, from, to, rawFrom) // [{ tool_name: "grep", session_id: "s1", at, net: -0.02 }]
 */
export function readToolNets(sql: SqlStorage, from: number, to: number, rawFrom: number): ToolNetRow[] {
  const rows = summaryRows(
    planWindow(from, to, rawFrom),
    { from, to },
    "tool_name, session_key AS cluster, g_n, gnet_s, seed_n, qrep_n, net_at",
    `COALESCE(d.tool_name, '') AS tool_name, COALESCE(d.session_id, d.id) AS cluster, ${SUMMARY_SUMS.g_n} AS g_n, ${GATE_NET_SUMS.gnet_s} AS gnet_s, ${GATE_NET_SUMS.seed_n} AS seed_n, ${GATE_NET_SUMS.qrep_n} AS qrep_n, o.at AS net_at`,
  );
  return sql
    .exec<ToolNetSqlRow>(
      `SELECT tool_name, cluster AS session_id, MAX(net_at) AS at, TOTAL(gnet_s) AS net, TOTAL(g_n) AS fired,
      TOTAL(seed_n) AS seed, TOTAL(qrep_n) AS cache_reported FROM (${rows.sql})
      WHERE tool_name <> '' AND g_n > 0 GROUP BY tool_name, cluster`,
      ...rows.bindings,
    )
    .toArray()
    .map(toolNetOf);
}
