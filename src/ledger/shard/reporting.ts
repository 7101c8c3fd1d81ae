/**
 * What a tool's reporting is judged on (src/learning/refresh/trust.ts,
 * docs/design/learning.md §3.5), as one shard answers it: per tool, fired decisions and their
 * outcomes, and per arm the decisions, outcomes, turns_after sums, sessions
 * and bills. Read over the raw rows only (the raw window, `ledger_raw_days`):
 * the rollups keep no count of decisions without an outcome, and a flag needs
 * no more history than that.
 *
 * @module
 */

/** One arm's reporting: decisions and those with an outcome, Σ turns_after (and its square) over them, sessions and those billed. */
export interface ArmCounts {
  decisions: number;
  reported: number;
  h_sum: number;
  h_sumsq: number;
  sessions: number;
  billed: number;
}

/** What a tool's reporting is judged on over the window; counts merge across shards by adding. */
export interface ReportingCounts {
  /** Fired decisions, those with an outcome, and of those the recalled. */
  fired: number;
  fired_reported: number;
  recalled: number;
  treated: ArmCounts;
  held_out: ArmCounts;
}

/** One tool's counts in one shard. */
export interface ToolReporting {
  tool: string;
  counts: ReportingCounts;
}

const arm = (held: 0 | 1, name: string) => `TOTAL(d.holdout = ${held}) AS ${name}_decisions,
  TOTAL(CASE WHEN d.holdout = ${held} AND o.decision_id IS NOT NULL THEN 1 END) AS ${name}_reported,
  TOTAL(CASE WHEN d.holdout = ${held} THEN o.turns_after END) AS ${name}_h_sum,
  TOTAL(CASE WHEN d.holdout = ${held} THEN o.turns_after * o.turns_after END) AS ${name}_h_sumsq`;

/** Per named tool, decisions in [from, to) with their outcomes, if any. */
export const REPORTING_DECISIONS = `SELECT d.tool_name AS tool,
  TOTAL(d.fire) AS fired,
  TOTAL(CASE WHEN d.fire = 1 AND o.decision_id IS NOT NULL THEN 1 END) AS fired_reported,
  TOTAL(CASE WHEN d.fire = 1 THEN o.recalled END) AS recalled,
  ${arm(0, "t")},
  ${arm(1, "h")}
  FROM decisions d LEFT JOIN outcomes o ON o.decision_id = d.id
  WHERE d.tool_name IS NOT NULL AND d.at >= ? AND d.at < ? GROUP BY d.tool_name`;

/** Per named tool, its sessions in [from, to) per arm (the tool's arm in the session), and those with a bill. */
export const REPORTING_SESSIONS = `SELECT tool,
  TOTAL(held = 0) AS t_sessions, TOTAL(held = 0 AND billed) AS t_billed,
  TOTAL(held = 1) AS h_sessions, TOTAL(held = 1 AND billed) AS h_billed
  FROM (SELECT d.tool_name AS tool, MAX(d.holdout) AS held, MAX(s.session_id IS NOT NULL) AS billed
    FROM decisions d LEFT JOIN sessions s ON s.session_id = d.session_id
    WHERE d.tool_name IS NOT NULL AND d.session_id IS NOT NULL AND d.at >= ? AND d.at < ?
    GROUP BY d.tool_name, d.session_id)
  GROUP BY tool`;

type Row = Record<string, number> & { tool: string };

/**
 * The two queries' rows as counts per tool.
 *
 * @example
 * readReporting(ctx.storage.sql, from, to) // [{ tool: "read_file", counts: { fired: 40, … } }]
 */
export function readReporting(sql: SqlStorage, from: number, to: number): ToolReporting[] {
  const sessions = new Map(
    sql
      .exec<Row>(REPORTING_SESSIONS, from, to)
      .toArray()
      .map((r) => [r.tool, r]),
  );
  return sql
    .exec<Row>(REPORTING_DECISIONS, from, to)
    .toArray()
    .map((r) => {
      const s = sessions.get(r.tool);
      const side = (p: "t" | "h"): ArmCounts => ({
        decisions: r[`${p}_decisions`] ?? 0,
        reported: r[`${p}_reported`] ?? 0,
        h_sum: r[`${p}_h_sum`] ?? 0,
        h_sumsq: r[`${p}_h_sumsq`] ?? 0,
        sessions: s?.[`${p}_sessions`] ?? 0,
        billed: s?.[`${p}_billed`] ?? 0,
      });
      return {
        tool: r.tool,
        counts: {
          fired: r.fired ?? 0,
          fired_reported: r.fired_reported ?? 0,
          recalled: r.recalled ?? 0,
          treated: side("t"),
          held_out: side("h"),
        },
      };
    });
}
