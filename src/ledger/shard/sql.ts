/**
 * The ledger shard's SQLite schema (its migrations, in order) and the raw
 * rows' aggregate queries. Every SQL statement the ledger runs lives in this
 * folder, src/ledger/shard/, beside the module that runs it: the rollups'
 * in ./rollup-sql.ts, the per-span sums' in ./cluster-spans.ts, the bills'
 * in ./bill-hours.ts, the packed pairs' in ./tool-chunks.ts, the learner's
 * in ./learning-sums.ts, the writes' and the purge's in ./shard-writes.ts, the
 * windowed reads' in ./rollup-reads.ts and the object's own in ./shard.ts.
 * docs/storage.md describes the layout.
 */
import { BILL_MIGRATION } from "./bill-hours";
import { CLUSTER_MIGRATION } from "./cluster-spans";
import { CHUNK_MIGRATION } from "./tool-chunks";
import { BAND_MIGRATION } from "./band-sums";
import { CLUSTER_TOTALS, ROLLUP_MIGRATION } from "./rollup-sql";
import { PENDING_MIGRATION } from "./pending";

/**
 * The schema's versions, in order: a shard runs those past the version in
 * its `meta` table when it starts, so a shard written by an older worker
 * gains the new columns instead of failing on them. A step is SQL, or code
 * where SQL cannot say it (adding a column only where it is missing).
 */
export const MIGRATIONS: readonly (string | ((sql: SqlStorage) => void))[] = [
  // 1: the tables and indexes.
  `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS price_rows (id INTEGER PRIMARY KEY, json TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS decisions (
  id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  session_id TEXT,
  tool_name TEXT,
  model_name TEXT NOT NULL,
  priced_as TEXT,
  pricing_mode TEXT NOT NULL,
  reason_code TEXT NOT NULL,
  fire INTEGER NOT NULL,
  would_fire INTEGER NOT NULL,
  holdout INTEGER NOT NULL,
  predicted_net REAL NOT NULL,
  output_tokens REAL NOT NULL,
  horizon REAL NOT NULL,
  recall_probability REAL NOT NULL,
  cache_hit_rate REAL NOT NULL,
  context_tokens REAL,
  stub_tokens REAL NOT NULL,
  recall_input_tokens REAL NOT NULL,
  recall_output_tokens REAL NOT NULL,
  row_id INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS decisions_at ON decisions (at);
CREATE INDEX IF NOT EXISTS decisions_session ON decisions (session_id, tool_name) WHERE session_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS outcomes (
  decision_id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  report TEXT NOT NULL,
  turns_after INTEGER NOT NULL,
  recalled INTEGER NOT NULL,
  q_hat REAL,
  realized_net REAL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  at INTEGER NOT NULL,
  report TEXT NOT NULL,
  model_name TEXT NOT NULL,
  priced_as TEXT,
  cost REAL NOT NULL,
  holdout INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_at ON sessions (at);
`,
  // 2: where the output was stubbed (econ v2), so a realized net prices the decision's own placement and cache write.
  `ALTER TABLE decisions ADD COLUMN offload_at TEXT;
ALTER TABLE decisions ADD COLUMN suffix_tokens REAL;
ALTER TABLE decisions ADD COLUMN cache_ttl TEXT;`,
  // 3: a clearing plan's segments and stubbed ids (JSON), so its outcome is priced by the plan's own formula.
  `ALTER TABLE decisions ADD COLUMN plan TEXT;`,
  // 4: hourly rollups and per-(session, tool) summaries, backfilled from the rows held (./rollup-sql.ts).
  ROLLUP_MIGRATION,
  // 5: per-session cluster sums and their per-span totals (./cluster-spans.ts), the bills' hourly sums
  // (./bill-hours.ts), the verdicts' pairs packed per tool and hour (./tool-chunks.ts): backfilled from
  // the summaries and bills held (the chunks by the shard after the step: packing takes code).
  CLUSTER_MIGRATION + BILL_MIGRATION + CHUNK_MIGRATION,
  // 6: p per (tool, model) and size band, hourly (./band-sums.ts), backfilled from the raw rows held.
  BAND_MIGRATION,
  // 7: outcomes of authentic ids whose decision has not arrived yet (./pending.ts).
  PENDING_MIGRATION,
  // 8: a session's covariate for the breaker's CUPED adjustment; the shard packs every chunk again after
  // the step, in the 25-byte layout that carries it (./tool-chunks.ts).
  (sql) => addColumn(sql, "sessions", "covariate REAL"),
];

/**
 * Adds a column unless the table has it already: SQLite has no ADD COLUMN IF NOT EXISTS, and a
 * step that ran once must not fail a shard whose version was set back (a restore, a test).
 *
 * @example
 * addColumn(sql, "sessions", "covariate REAL")
 */
export function addColumn(sql: SqlStorage, table: string, column: string): void {
  const name = column.split(" ")[0];
  const columns = sql.exec<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).toArray();
  if (!columns.some((c) => c.name === name)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${column}`);
}

export const INSERT_DECISION = `INSERT OR IGNORE INTO decisions (id, at, session_id, tool_name, model_name, priced_as,
  pricing_mode, reason_code, fire, would_fire, holdout, predicted_net, output_tokens, horizon, recall_probability,
  cache_hit_rate, context_tokens, stub_tokens, recall_input_tokens, recall_output_tokens, row_id,
  offload_at, suffix_tokens, cache_ttl, plan)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

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
