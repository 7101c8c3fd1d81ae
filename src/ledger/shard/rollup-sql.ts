/**
 * The ledger shard's hourly rollups and per-(session, tool) summaries
 * (docs/ledger/rollups.md): their tables, the one list of what each
 * column sums over the raw rows, and the statements that keep them current.
 * Every column is defined once, as an expression over one decision `d` and
 * its outcome `o` (LEFT JOIN: `o` may be absent), so the migration's
 * backfill, the incremental upserts and the raw reads of partial hours sum
 * exactly the same thing.
 */

import { OBSERVED_TOOL_PREFIX } from "../../storage/rules";

/** An hour in milliseconds: the rollups' grain. */
export const HOUR_MS = 3_600_000;

// A fired decision whose outcome priced it; one that did not fire outside the holdout, with a positive counterfactual.
const FWO = "d.fire = 1 AND o.realized_net IS NOT NULL";
const MISSED = "d.fire = 0 AND d.holdout = 0 AND o.realized_net > 0";
// Whether the outcome sent cached_turns (kept in the report, null when not sent).
const CACHED = "json_extract(o.report, '$.cached_turns')";
const HAS_OUTCOME = "o.decision_id IS NOT NULL";
// A fired, priced decision the proxy observed (docs/design/proxy.md §6): its tool name carries the prefix.
const OBSERVED_LIKE = `'${OBSERVED_TOOL_PREFIX}%'`;
const OBSERVED_FWO = `${FWO} AND d.tool_name LIKE ${OBSERVED_LIKE}`;
/** An outcome's high end of the recall evidence: `recalled` when it sent none (docs/design/learning.md §8). */
export const RECALLED_HIGH = "COALESCE(o.recalled_high, o.recalled)";

/**
 * A rollup row's key: its hour, tool ('' for none: a tool name is never
 * empty), model as requested and as priced ('' when unpriced), and arm.
 */
export const ROLLUP_KEY = {
  hour: "d.at - d.at % 3600000",
  tool_name: "COALESCE(d.tool_name, '')",
  model_name: "d.model_name",
  priced_as: "COALESCE(d.priced_as, '')",
  holdout: "d.holdout",
} as const;

/** Counted when the decision arrives. */
export const DECISION_COLUMNS = { decisions: "1", fired: "d.fire" } as const;

/**
 * Counted when its outcome arrives, into the rollup of its decision's hour:
 * what the savings report (report.ts, LedgerSums) and the learner
 * (learning-sums.ts, LevelSums) read. Each is 0 without an outcome.
 */
export const OUTCOME_COLUMNS = {
  outcomes: `${HAS_OUTCOME}`,
  fwo: `${FWO}`,
  fwo_predicted: `CASE WHEN ${FWO} THEN d.predicted_net ELSE 0 END`,
  fwo_realized: `CASE WHEN ${FWO} THEN o.realized_net ELSE 0 END`,
  fwo_gap_sumsq: `CASE WHEN ${FWO} THEN (o.realized_net - d.predicted_net) * (o.realized_net - d.predicted_net) ELSE 0 END`,
  fwo_recalled: `CASE WHEN ${FWO} THEN o.recalled ELSE 0 END`,
  fwo_prior_recall: `CASE WHEN ${FWO} THEN d.recall_probability ELSE 0 END`,
  // The recall range of the proxy's observed decisions: low (charged) and high (any detection) ends.
  obs_fwo: `CASE WHEN ${OBSERVED_FWO} THEN 1 ELSE 0 END`,
  obs_recalled: `CASE WHEN ${OBSERVED_FWO} THEN o.recalled ELSE 0 END`,
  obs_recalled_high: `CASE WHEN ${OBSERVED_FWO} THEN ${RECALLED_HIGH} ELSE 0 END`,
  horizon_sum: `COALESCE(o.turns_after, 0)`,
  horizon_sumsq: `COALESCE(o.turns_after * o.turns_after, 0)`,
  prior_horizon_sum: `CASE WHEN ${HAS_OUTCOME} THEN d.horizon ELSE 0 END`,
  cache_n: `o.q_hat IS NOT NULL`,
  cache_sum: `COALESCE(o.q_hat, 0)`,
  cache_sumsq: `COALESCE(o.q_hat * o.q_hat, 0)`,
  prior_cache_sum: `CASE WHEN o.q_hat IS NOT NULL THEN d.cache_hit_rate ELSE 0 END`,
  missed_n: `COALESCE(${MISSED}, 0)`,
  missed_usd: `CASE WHEN ${MISSED} THEN o.realized_net ELSE 0 END`,
  // The learner's: p over fired decisions with an outcome (priced or not), q over outcomes that sent cached_turns.
  fired_outcomes: `CASE WHEN ${HAS_OUTCOME} THEN d.fire ELSE 0 END`,
  fired_recalled: `CASE WHEN ${HAS_OUTCOME} AND d.fire = 1 THEN o.recalled ELSE 0 END`,
  cached_n: `${CACHED} IS NOT NULL`,
  cached_turns: `COALESCE(${CACHED}, 0)`,
  cached_turns_after: `CASE WHEN ${CACHED} IS NOT NULL THEN o.turns_after ELSE 0 END`,
} as const;

/**
 * A summary row's key: the session (a decision without one is its own
 * cluster, under its own id), tool, models and hour. Kept for the retention,
 * so the per-tool verdicts (which need each session) and the clustered
 * intervals (which need each session's sums) outlive the raw rows.
 */
export const SUMMARY_KEY = {
  session_key: "COALESCE(d.session_id, d.id)",
  tool_name: "COALESCE(d.tool_name, '')",
  model_name: "d.model_name",
  priced_as: "COALESCE(d.priced_as, '')",
  hour: "d.at - d.at % 3600000",
} as const;

/** The summary's sums, each 0 without an outcome (the cluster sums of sql.ts, and the breaker's net). */
export const SUMMARY_SUMS = {
  g_n: `${FWO}`,
  g_s: `CASE WHEN ${FWO} THEN o.realized_net - d.predicted_net ELSE 0 END`,
  r_s: `CASE WHEN ${FWO} THEN o.recalled ELSE 0 END`,
  h_n: `${HAS_OUTCOME}`,
  h_s: `COALESCE(o.turns_after, 0)`,
  q_n: `o.q_hat IS NOT NULL`,
  q_s: `COALESCE(o.q_hat, 0)`,
  net_s: `CASE WHEN ${FWO} THEN o.realized_net ELSE 0 END`,
} as const;
/**
 * The breaker's net without a holdout, as the gate priced each decision (docs/design/learning.md §4.2),
 * and what priced it: seed economics, or the cache state the outcome reported (else the q priced with).
 * Summed per (session, tool) since migration 9; an outcome stored before it has no gate_net and counts
 * at its realized net.
 */
export const GATE_NET_SUMS = {
  gnet_s: `CASE WHEN ${FWO} THEN COALESCE(o.gate_net, o.realized_net) ELSE 0 END`,
  seed_n: `CASE WHEN ${FWO} AND d.pricing_mode = 'seed' THEN 1 ELSE 0 END`,
  qrep_n: `CASE WHEN ${FWO} AND d.pricing_mode <> 'seed' AND o.q_hat IS NOT NULL THEN 1 ELSE 0 END`,
} as const;

/** When the last priced outcome of a fired decision arrived: the breaker's order without a holdout. */
const NET_AT = `CASE WHEN ${FWO} THEN o.at END`;

/**
 * Each cluster's terms in CLUSTER_TOTALS, as expressions over one cluster's
 * g_n, g_s, r_s, h_n, h_s, q_n, q_s: the one definition the raw reads, the
 * summaries' reads and the per-span aggregates (./cluster-spans.ts) share.
 */
export const CLUSTER_TERMS = {
  gap_g: "g_n > 0",
  gap_cs2: "g_s * g_s",
  gap_ncs: "g_n * g_s",
  gap_n2: "g_n * g_n",
  hor_g: "h_n > 0",
  hor_cs2: "h_s * h_s",
  hor_ncs: "h_n * h_s",
  hor_n2: "h_n * h_n",
  q_g: "q_n > 0",
  q_cs2: "q_s * q_s",
  q_ncs: "q_n * q_s",
  q_n2: "q_n * q_n",
  rec_g: "g_n > 0",
  rec_cs2: "r_s * r_s",
  rec_ncs: "g_n * r_s",
  rec_n2: "g_n * g_n",
} as const;
export const CLUSTER_TOTALS = `SELECT
  ${Object.entries(CLUSTER_TERMS)
    .map(([name, e]) => `TOTAL(${e}) AS ${name}`)
    .join(", ")}
  FROM `;

const names = (o: object) => Object.keys(o);
const exprs = (o: Record<string, string>, wrap: (e: string) => string = (e) => e) =>
  Object.entries(o).map(([name, e]) => `${wrap(e)} AS ${name}`);
const realCols = (o: object) => names(o).map((n) => `${n} REAL NOT NULL DEFAULT 0`);
const JOINED = "FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id";

/** The rollups' observed recall-range columns, added by migration 12. */
export const OBSERVED_ROLLUP_COLUMNS = ["obs_fwo", "obs_recalled", "obs_recalled_high"] as const;

/**
 * Migration 12's backfill of a shard whose rollups predate the observed recall range: an observed
 * tool's priced fired decisions, and their recalls at both ends (an older outcome sent one flag).
 */
export const OBSERVED_ROLLUP_BACKFILL = `UPDATE rollups SET obs_fwo = fwo, obs_recalled = fwo_recalled, obs_recalled_high = fwo_recalled
  WHERE tool_name LIKE ${OBSERVED_LIKE}`;

/**
 * Migration 4: the tables, and a backfill from the raw rows the shard holds
 * (OR IGNORE: a row already rolled up is kept, should the step run twice).
 */
export const ROLLUP_MIGRATION = `
CREATE TABLE IF NOT EXISTS rollups (
  hour INTEGER NOT NULL, tool_name TEXT NOT NULL, model_name TEXT NOT NULL, priced_as TEXT NOT NULL, holdout INTEGER NOT NULL,
  ${[...realCols(DECISION_COLUMNS), ...realCols(OUTCOME_COLUMNS)].join(",\n  ")},
  PRIMARY KEY (hour, tool_name, model_name, priced_as, holdout)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_tools (
  session_key TEXT NOT NULL, tool_name TEXT NOT NULL, model_name TEXT NOT NULL, priced_as TEXT NOT NULL, hour INTEGER NOT NULL,
  solo INTEGER NOT NULL, held INTEGER NOT NULL,
  ${realCols(SUMMARY_SUMS).join(",\n  ")},
  net_at INTEGER,
  PRIMARY KEY (session_key, tool_name, model_name, priced_as, hour)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_tools_hour ON session_tools (hour);
INSERT OR IGNORE INTO rollups (${[...names(ROLLUP_KEY), ...names(DECISION_COLUMNS), ...names(OUTCOME_COLUMNS)].join(", ")})
  ${rollupSelect("true")};
INSERT OR IGNORE INTO session_tools (${[...names(SUMMARY_KEY), "solo", "held", ...names(SUMMARY_SUMS), "net_at"].join(", ")})
  ${summarySelect("d.session_id IS NOT NULL OR o.decision_id IS NOT NULL")};
`;

/**
 * Rollup rows computed from the raw rows a WHERE clause selects (over `d`):
 * the backfill's, and the reads' for hours only partly in a window.
 *
 * @example
 * sql.exec(rollupSelect("d.at >= ? AND d.at < ?"), from, to)
 */
export function rollupSelect(where: string): string {
  const key = Object.values(ROLLUP_KEY);
  return `SELECT ${exprs(ROLLUP_KEY).join(", ")}, ${exprs({ ...DECISION_COLUMNS, ...OUTCOME_COLUMNS }, (e) => `TOTAL(${e})`).join(", ")}
  ${JOINED} WHERE ${where} GROUP BY ${key.join(", ")}`;
}

/** Summary rows computed from the raw rows a WHERE clause selects: the backfill's. */
function summarySelect(where: string): string {
  return `SELECT ${exprs(SUMMARY_KEY).join(", ")}, MAX(d.session_id IS NULL) AS solo, MAX(d.holdout) AS held,
  ${exprs(SUMMARY_SUMS, (e) => `TOTAL(${e})`).join(", ")}, MAX(${NET_AT}) AS net_at
  ${JOINED} WHERE ${where} GROUP BY ${Object.values(SUMMARY_KEY).join(", ")}`;
}

const added = (o: object) => names(o).map((n) => `${n} = ${n} + excluded.${n}`);

/** A decision-time increment of one rollup row: key, then decisions and fired. */
export const ADD_DECISIONS = `INSERT OR IGNORE INTO rollups (${[...names(ROLLUP_KEY), ...names(DECISION_COLUMNS)].join(", ")})
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO UPDATE SET ${added(DECISION_COLUMNS).join(", ")}`;

/** A session's decision-time summary row: its key, and its arm (held out when any decision was). */
export const ADD_SESSION_TOOL = `INSERT INTO session_tools (${[...names(SUMMARY_KEY), "solo", "held"].join(", ")})
  VALUES (?, ?, ?, ?, ?, 0, ?)
  ON CONFLICT DO UPDATE SET held = MAX(held, excluded.held)`;

// The decisions whose outcomes were just stored, bound as one JSON array (a statement takes at most 100 bindings).
const NEW_OUTCOMES =
  "FROM decisions d JOIN outcomes o ON o.decision_id = d.id WHERE d.id IN (SELECT value FROM json_each(?))";

/** Adds outcomes just stored (bound: a JSON array of their decision ids) to their decisions' hours' rollups. */
export const ADD_OUTCOME_ROLLUPS = `INSERT INTO rollups (${[...names(ROLLUP_KEY), ...names(OUTCOME_COLUMNS)].join(", ")})
  SELECT ${[...exprs(ROLLUP_KEY), ...exprs(OUTCOME_COLUMNS, (e) => `TOTAL(${e})`)].join(", ")}
  ${NEW_OUTCOMES} GROUP BY ${Object.values(ROLLUP_KEY).join(", ")}
  ON CONFLICT DO UPDATE SET ${added(OUTCOME_COLUMNS).join(", ")}`;

/** Adds outcomes just stored (bound: a JSON array of their decision ids) to their (session, tool, hour) summaries. */
export const ADD_OUTCOME_SUMMARIES = `INSERT INTO session_tools (${[...names(SUMMARY_KEY), "solo", "held", ...names(SUMMARY_SUMS), ...names(GATE_NET_SUMS), "net_at"].join(", ")})
  SELECT ${exprs(SUMMARY_KEY).join(", ")}, MAX(d.session_id IS NULL), MAX(d.holdout),
  ${exprs({ ...SUMMARY_SUMS, ...GATE_NET_SUMS }, (e) => `TOTAL(${e})`).join(", ")}, MAX(${NET_AT})
  ${NEW_OUTCOMES} GROUP BY ${Object.values(SUMMARY_KEY).join(", ")}
  ON CONFLICT DO UPDATE SET ${[...added(SUMMARY_SUMS), ...added(GATE_NET_SUMS)].join(", ")}, held = MAX(held, excluded.held),
  net_at = MAX(COALESCE(net_at, excluded.net_at), COALESCE(excluded.net_at, net_at))`;

/**
 * Migration 9: the gate's own net per outcome and its sums per (session, tool), backfilled from the
 * raw rows held; a summary whose raw rows are gone counts at its realized net, with nothing said
 * about what priced it.
 */
export const GATE_NET_COLUMNS = [
  ["outcomes", "gate_net REAL"],
  ...Object.keys(GATE_NET_SUMS).map((name) => ["session_tools", `${name} REAL NOT NULL DEFAULT 0`] as const),
] as const;
const SAME_KEY = Object.entries(SUMMARY_KEY)
  .map(([name, e]) => `${e} = session_tools.${name}`)
  .join(" AND ");
export const GATE_NET_BACKFILL = `UPDATE session_tools SET gnet_s = net_s;
UPDATE session_tools SET ${Object.entries(GATE_NET_SUMS)
  .map(([name, e]) => `${name} = (SELECT TOTAL(${e}) ${JOINED} WHERE ${SAME_KEY})`)
  .join(", ")}
  WHERE EXISTS (SELECT 1 FROM decisions d WHERE ${SAME_KEY});`;
