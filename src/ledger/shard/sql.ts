/**
 * The ledger shard's raw rows' queries and their aggregates. Every SQL
 * statement the ledger runs lives in this folder, src/ledger/shard/, beside
 * the module that runs it: the schema and its migrations in ./migrations.ts,
 * the rollups' in ./rollup-sql.ts, the per-span sums' in ./cluster-spans.ts,
 * the bills' in ./bill-hours.ts, the packed pairs' in ./tool-chunks.ts, the
 * learner's in ./learning-sums.ts, the writes' and the purge's in
 * ./shard-writes.ts, the windowed reads' in ./rollup-reads.ts, the billed
 * sessions' in ./session-reads.ts and the object's own in ./shard.ts.
 * docs/storage.md describes the layout.
 */
import { CLUSTER_TOTALS, OUTCOME_COLUMNS } from "./rollup-sql";

export const INSERT_DECISION = `INSERT OR IGNORE INTO decisions (id, at, session_id, tool_name, model_name, priced_as,
  pricing_mode, reason_code, fire, would_fire, holdout, predicted_net, output_tokens, horizon, recall_probability,
  cache_hit_rate, context_tokens, stub_tokens, recall_input_tokens, recall_output_tokens, row_id,
  offload_at, suffix_tokens, cache_ttl, plan, recall_placement)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** A decision with its row, for pricing an outcome. */
export const SELECT_DECISION = `SELECT d.*, r.json AS row_json FROM decisions d
  LEFT JOIN price_rows r ON r.id = d.row_id WHERE d.id = ?`;

/** A row of SELECT_DECISION: a `decisions` row (columns of later versions null on older rows) and its price row's JSON. */
export type DecisionRow = {
  id: string;
  at: number;
  session_id: string | null;
  tool_name: string | null;
  model_name: string;
  priced_as: string | null;
  pricing_mode: string;
  reason_code: string;
  fire: number;
  would_fire: number;
  holdout: number;
  predicted_net: number;
  output_tokens: number;
  horizon: number;
  recall_probability: number;
  cache_hit_rate: number;
  context_tokens: number | null;
  stub_tokens: number;
  recall_input_tokens: number;
  recall_output_tokens: number;
  offload_at: string | null;
  suffix_tokens: number | null;
  cache_ttl: string | null;
  plan: string | null;
  /** NULL: appended (rows from before schema 11, and every decision that did not price "in_place"). */
  recall_placement: string | null;
  row_json: string | null;
};

/** A one-row aggregate of named sums: TOTAL()s and COUNT()s, never null; a read takes a missing or null one as 0. */
export type SumsRow = Record<string, number | null>;

/** The filters every aggregate applies: a window, and optionally a tool and a model. */
export interface SumsFilter {
  from: number;
  to: number;
  tool_name?: string;
  model?: string;
}

/** The WHERE clause and its bindings for the decisions (alias `d`) a filter selects. */
export function decisionWhere(filter: SumsFilter): { where: string; bindings: (string | number)[] } {
  return whereOf(filter, "d.at", "d.tool_name = ?", "(d.model_name = ? OR d.priced_as = ?)");
}

/**
 * The WHERE clause for the sessions (alias `s`) a filter selects: reported
 * in the window, of the model, and, for a tool, sessions with at least one
 * decision about that tool.
 */
export function sessionWhere(filter: SumsFilter): { where: string; bindings: (string | number)[] } {
  return whereOf(
    filter,
    "s.at",
    "EXISTS (SELECT 1 FROM decisions d WHERE d.session_id = s.session_id AND d.tool_name = ?)",
    "(s.model_name = ? OR s.priced_as = ?)",
  );
}

/**
 * A WHERE clause for a filter: the window on `at`, then the tool and model
 * conditions (one binding for the tool's, two for the model's) when set.
 *
 * @example
 * whereOf({ from, to, model: "gpt-5" }, "s.at", "s.tool = ?", "(s.model_name = ? OR s.priced_as = ?)")
 */
export function whereOf(
  filter: SumsFilter,
  at: string,
  tool: string,
  model: string,
): { where: string; bindings: (string | number)[] } {
  const parts = [`${at} >= ?`, `${at} < ?`];
  const bindings: (string | number)[] = [filter.from, filter.to];
  if (filter.tool_name !== undefined) {
    parts.push(tool);
    bindings.push(filter.tool_name);
  }
  if (filter.model !== undefined) {
    parts.push(model);
    bindings.push(filter.model, filter.model);
  }
  return { where: parts.join(" AND "), bindings };
}

// A fired decision whose outcome priced it; one that did not fire outside the holdout.
const FWO = "d.fire = 1 AND o.realized_net IS NOT NULL";
const MISSED = "d.fire = 0 AND d.holdout = 0 AND o.realized_net > 0";

// The observed recall range's counts, by the rollups' own definitions (./rollup-sql.ts).
const OBSERVED_RECALL_SUMS = `TOTAL(${OUTCOME_COLUMNS.obs_fwo}) AS observed_n,
  TOTAL(${OUTCOME_COLUMNS.obs_recalled}) AS observed_low,
  TOTAL(${OUTCOME_COLUMNS.obs_recalled_high}) AS observed_high`;

/** The observed recall range's counts per tool (prefix of a WHERE over `d`, then GROUP BY d.tool_name). */
export const OBSERVED_RECALL_BY_TOOL = `SELECT d.tool_name AS tool_name, TOTAL(${OUTCOME_COLUMNS.obs_fwo}) AS n,
  TOTAL(${OUTCOME_COLUMNS.obs_recalled}) AS low, TOTAL(${OUTCOME_COLUMNS.obs_recalled_high}) AS high
  FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id WHERE `;

/** The decision-level sums of report.ts's LedgerSums, one row. */
export const DECISION_SUMS = `SELECT
  COUNT(*) AS decisions,
  TOTAL(d.fire) AS fired,
  TOTAL(d.holdout) AS holdout_decisions,
  COUNT(o.decision_id) AS outcomes,
  TOTAL(${FWO}) AS fired_with_outcome,
  TOTAL(CASE WHEN ${FWO} THEN d.predicted_net END) AS predicted,
  TOTAL(CASE WHEN ${FWO} THEN o.realized_net END) AS realized,
  TOTAL(CASE WHEN ${FWO} THEN (o.realized_net - d.predicted_net) * (o.realized_net - d.predicted_net) END) AS gap_sumsq,
  TOTAL(CASE WHEN ${FWO} THEN o.recalled END) AS recalled,
  TOTAL(CASE WHEN ${FWO} THEN d.recall_probability END) AS prior_recall_sum,
  ${OBSERVED_RECALL_SUMS},
  TOTAL(o.turns_after) AS horizon_sum,
  TOTAL(o.turns_after * o.turns_after) AS horizon_sumsq,
  TOTAL(CASE WHEN o.decision_id IS NOT NULL THEN d.horizon END) AS prior_horizon_sum,
  COUNT(o.q_hat) AS cache_n,
  TOTAL(o.q_hat) AS cache_sum,
  TOTAL(o.q_hat * o.q_hat) AS cache_sumsq,
  TOTAL(CASE WHEN o.q_hat IS NOT NULL THEN d.cache_hit_rate END) AS prior_cache_sum,
  TOTAL(${MISSED}) AS missed_decisions,
  TOTAL(CASE WHEN ${MISSED} THEN o.realized_net END) AS missed_usd
  FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id WHERE `;

/** Per time bucket (the first binding is the bucket width in ms; % works in integers, as a bound number may be real). */
export const SERIES_SUMS = `SELECT
  d.at - (d.at % ?) AS start,
  COUNT(*) AS decisions,
  TOTAL(d.fire) AS fired,
  TOTAL(${FWO}) AS fired_with_outcome,
  TOTAL(CASE WHEN ${FWO} THEN d.predicted_net END) AS predicted,
  TOTAL(CASE WHEN ${FWO} THEN o.realized_net END) AS realized
  FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id WHERE `;

/** A row of SERIES_SUMS (and of the rollups' series in ./rollup-reads.ts): counts and TOTAL()s, never null. */
export type SeriesSqlRow = {
  start: number;
  decisions: number;
  fired: number;
  fired_with_outcome: number;
  predicted: number;
  realized: number;
};

/**
 * The WHERE clause for the raw (session, tool) pairs (raw-reads.ts): sessions
 * (alias `s`) reported in the window, of the model, joined with their
 * decisions (alias `d`), and, for a tool, only that tool's.
 */
export function toolSessionWhere(filter: SumsFilter): { where: string; bindings: (string | number)[] } {
  return whereOf(filter, "s.at", "d.tool_name = ?", "(s.model_name = ? OR s.priced_as = ?)");
}

/**
 * One row per (session with a bill, tool with a decision in it). A tool is
 * treated in the session unless a decision about it was held out: the draw
 * puts every one of them in the same arm, so MAX only matters when
 * holdout_fraction changed during the session, and then the pair was not
 * wholly treated.
 */
export const TOOL_SESSIONS = `SELECT COALESCE(d.tool_name, '') AS tool_name, s.session_id AS session_id, s.at AS at,
  MAX(d.holdout) AS held, s.cost AS cost, s.covariate AS covariate
  FROM sessions s JOIN decisions d ON d.session_id = s.session_id WHERE `;
export const TOOL_SESSIONS_GROUP = " GROUP BY s.session_id, COALESCE(d.tool_name, '')";

/** A row of TOOL_SESSIONS (and of the summaries' twin in ./rollup-reads.ts): every column NOT NULL. */
export type ToolSessionSqlRow = {
  tool_name: string;
  session_id: string;
  at: number;
  held: number;
  cost: number;
  covariate: number | null;
};

/** The sessions' bills (their arms are per tool now: see TOOL_SESSIONS). */
export const SESSION_SUMS = `SELECT COUNT(*) AS n, TOTAL(s.cost) AS sum, TOTAL(s.cost * s.cost) AS sumsq
  FROM sessions s WHERE `;

/** Over the bills that sent `cache_misses` (both columns set together): how many, and each cause's missed tokens. */
export const CACHE_MISS_SUMS = `SELECT COUNT(*) AS sessions, TOTAL(s.missed_after_rewrite) AS after_gate_rewrite,
  TOTAL(s.missed_other) AS other FROM sessions s WHERE s.missed_other IS NOT NULL AND `;

/**
 * The cluster sums (stats.ts, ClusterSums) of the clustered intervals of
 * docs/design/ledger.md §5, for realized − predicted (gap), the horizon, q̂ and the
 * recall rate: one inner row per session (a decision without one is its own
 * cluster), then Σ S², Σ n·S and Σ n² over them (CLUSTER_TOTALS, over
 * per-cluster rows of g_n, g_s, r_s, h_n, h_s, q_n, q_s). Ends in the inner
 * WHERE; append CLUSTER_SUMS_END.
 */
export const CLUSTER_SUMS = `${CLUSTER_TOTALS}(SELECT COALESCE(d.session_id, d.id) AS cluster,
    TOTAL(${FWO}) AS g_n,
    TOTAL(CASE WHEN ${FWO} THEN o.realized_net - d.predicted_net END) AS g_s,
    TOTAL(CASE WHEN ${FWO} THEN o.recalled END) AS r_s,
    COUNT(o.decision_id) AS h_n,
    TOTAL(o.turns_after) AS h_s,
    COUNT(o.q_hat) AS q_n,
    TOTAL(o.q_hat) AS q_s
    FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id WHERE `;
export const CLUSTER_SUMS_END = " GROUP BY cluster)";
