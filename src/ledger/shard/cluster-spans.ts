/**
 * The clustered intervals' terms (docs/design/ledger.md §5) summed per span of hours
 * (docs/ledger/rollups.md): each session's cluster sums over all its
 * summaries (`session_clusters`, one row per session), and per (first hour,
 * last hour) of sessions the sums of their terms (`cluster_spans`), so an
 * unfiltered window reads the sessions wholly inside its whole hours as a
 * few rows per hour and only the sessions across its edges one by one.
 */
import { CLUSTER_TERMS, CLUSTER_TOTALS, SUMMARY_SUMS } from "./rollup-sql";
import type { SumsRow } from "./sql";

type Row = SumsRow;

/** A session's cluster sums (the summaries' columns the intervals read). */
const SUMS = [
  "g_n",
  "g_s",
  "r_s",
  "h_n",
  "h_s",
  "q_n",
  "q_s",
] as const satisfies readonly (keyof typeof SUMMARY_SUMS)[];
const TERMS = Object.keys(CLUSTER_TERMS);
const termExprs = (sign: string) => Object.values(CLUSTER_TERMS).map((e) => `${sign}TOTAL(${e})`);
const sessionSums = `session_key, MIN(hour), MAX(hour), ${SUMS.map((n) => `TOTAL(${n})`).join(", ")}`;

/**
 * Migration 5's tables and backfill from the summaries a shard holds. Each
 * span term keeps a compensation column (`<term>_c`): sessions move between
 * spans by subtracting their old terms and adding their new ones, and the
 * compensated sum (Neumaier's) keeps that from drifting from a sum in one
 * pass.
 */
export const CLUSTER_MIGRATION = `
CREATE TABLE IF NOT EXISTS session_clusters (
  session_key TEXT PRIMARY KEY, first_hour INTEGER NOT NULL, last_hour INTEGER NOT NULL,
  ${SUMS.map((n) => `${n} REAL NOT NULL`).join(", ")}
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_clusters_span ON session_clusters (first_hour, last_hour);
CREATE TABLE IF NOT EXISTS cluster_spans (
  first_hour INTEGER NOT NULL, last_hour INTEGER NOT NULL, sessions INTEGER NOT NULL,
  ${TERMS.map((n) => `${n} REAL NOT NULL, ${n}_c REAL NOT NULL DEFAULT 0`).join(",\n  ")},
  PRIMARY KEY (first_hour, last_hour)
) WITHOUT ROWID;
INSERT OR IGNORE INTO session_clusters SELECT ${sessionSums} FROM session_tools GROUP BY session_key;
INSERT OR IGNORE INTO cluster_spans (first_hour, last_hour, sessions, ${TERMS.join(", ")})
  SELECT first_hour, last_hour, COUNT(*), ${termExprs("").join(", ")} FROM session_clusters GROUP BY first_hour, last_hour;
`;

const IN_KEYS = "session_key IN (SELECT value FROM json_each(?))";
// Adds `x` to a term with Neumaier's compensation (every SET reads the row's old values).
const compensated = (n: string) =>
  `${n} = ${n} + excluded.${n}, ${n}_c = ${n}_c + CASE WHEN abs(${n}) >= abs(excluded.${n}) ` +
  `THEN (${n} - (${n} + excluded.${n})) + excluded.${n} ELSE (excluded.${n} - (${n} + excluded.${n})) + ${n} END`;
const spanAdd = (sign: "" | "-") => `INSERT INTO cluster_spans (first_hour, last_hour, sessions, ${TERMS.join(", ")})
  SELECT first_hour, last_hour, ${sign}COUNT(*), ${termExprs(sign).join(", ")} FROM session_clusters WHERE ${IN_KEYS}
  GROUP BY first_hour, last_hour
  ON CONFLICT DO UPDATE SET sessions = sessions + excluded.sessions, ${TERMS.map(compensated).join(", ")}`;
const REFRESH = [
  spanAdd("-"),
  `DELETE FROM session_clusters WHERE ${IN_KEYS}`,
  `INSERT INTO session_clusters SELECT ${sessionSums} FROM session_tools WHERE ${IN_KEYS} GROUP BY session_key`,
  spanAdd(""),
];

/**
 * Recomputes the sessions' cluster sums from their summaries (after a write
 * or the purge changed them) and moves their terms to their spans: out of
 * the old, into the new. A session with no summary left leaves both tables.
 *
 * @example
 * refreshClusters(sql, JSON.stringify(["s1", "s2"]))
 */
export function refreshClusters(sql: SqlStorage, keysJson: string): void {
  for (const statement of REFRESH) sql.exec(statement, keysJson);
  sql.exec("DELETE FROM cluster_spans WHERE sessions = 0");
}

/**
 * Of (session key, hour) pairs of decisions just stored (bound: a JSON array
 * of pairs), the keys whose span they change: a session without a row yet,
 * or an hour outside its first and last. A decision brings no cluster sums
 * (they come with outcomes), so only those need refreshing. A JSON array.
 */
export const KEYS_MOVED = `SELECT json_group_array(DISTINCT k.value ->> 0) AS keys FROM json_each(?) k
  LEFT JOIN session_clusters c ON c.session_key = k.value ->> 0
  WHERE c.session_key IS NULL OR k.value ->> 1 < c.first_hour OR k.value ->> 1 > c.last_hour`;

/** The session keys of decisions just stored or given outcomes (bound: a JSON array of their ids), as a JSON array. */
export const KEYS_OF_DECISIONS =
  "SELECT json_group_array(DISTINCT COALESCE(session_id, id)) AS keys FROM decisions WHERE id IN (SELECT value FROM json_each(?))";

/** The sessions whose first summary is before an hour (bound): the purge's, as a JSON array. */
export const KEYS_BEFORE = "SELECT json_group_array(session_key) AS keys FROM session_clusters WHERE first_hour < ?";
/** The one row of KEYS_MOVED, KEYS_OF_DECISIONS and KEYS_BEFORE: json_group_array gives "[]", never null, for no rows. */
export type KeysRow = { keys: string };

/**
 * The unfiltered cluster sums of whole hours [from, to) and the raw rows
 * of the window's partial hours (`raw`: a SELECT of cluster and the sums per
 * decision, with its bindings): the spans wholly inside the hours from
 * `cluster_spans`; the sessions that cross `from` or `to`, with whatever
 * decisions of the partial hours, grouped by session from their summaries
 * inside the hours and those raw rows. A row of CLUSTER_TOTALS' names.
 *
 * @example
 * unfilteredClusters(sql, 7_200_000, 36_000_000, []) // { gap_g: 412, gap_cs2: 0.31, ... }
 */
export function unfilteredClusters(
  sql: SqlStorage,
  from: number,
  to: number,
  raw: { sql: string; bindings: (string | number)[] }[],
): Row {
  const whole = sql
    .exec<SumsRow>(
      `SELECT ${TERMS.map((n) => `TOTAL(${n}) + TOTAL(${n}_c) AS ${n}`).join(", ")}
    FROM cluster_spans WHERE first_hour >= ? AND last_hour < ?`,
      from,
      to,
    )
    .one();
  const crossing = `SELECT c.session_key FROM cluster_spans p JOIN session_clusters c ON c.first_hour = p.first_hour AND c.last_hour = p.last_hour
    WHERE (p.first_hour < ? AND p.last_hour >= ?) OR (p.first_hour < ? AND p.last_hour >= ?)`;
  const parts = [
    `SELECT session_key AS cluster, ${SUMS.join(", ")} FROM session_tools WHERE hour >= ? AND hour < ? AND session_key IN (${crossing})`,
  ];
  const bindings: (string | number)[] = [from, to, from, from, to, to];
  for (const r of raw) {
    parts.push(r.sql);
    bindings.push(...r.bindings);
  }
  const edges = sql
    .exec<SumsRow>(
      `${CLUSTER_TOTALS}(SELECT cluster, ${SUMS.map((n) => `TOTAL(${n}) AS ${n}`).join(", ")}
    FROM (${parts.join(" UNION ALL ")}) GROUP BY cluster)`,
      ...bindings,
    )
    .one();
  return Object.fromEntries(TERMS.map((n) => [n, (whole[n] ?? 0) + (edges[n] ?? 0)]));
}
