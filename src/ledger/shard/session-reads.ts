/**
 * The shard's reads about billed sessions: the per-tool verdicts' (session,
 * tool) pairs from the per-(session, tool) summaries (the source the packed
 * chunks of ./tool-chunks.ts are built from, and the form a model's filter
 * reads), and where a session's rows are.
 *
 * @module
 */
import type { ToolSessionRow } from "../model";
import { toolSessionOf } from "./raw-reads";
import { SESSION_MODEL } from "./rollup-reads";
import { type SumsFilter, type ToolSessionSqlRow, whereOf } from "./sql";

/**
 * The per-tool verdicts' (session, tool) pairs from the summaries: every
 * session with a bill in the window and each tool it had a decision about,
 * as readRawToolSessions gives them over raw rows.
 *
 * @example
 * readToolSessions(ctx.storage.sql, { from, to }) // [{ tool_name: "grep", session_id: "s1", at, treated: true, cost: 2.5 }]
 */
export function readToolSessions(sql: SqlStorage, filter: SumsFilter): ToolSessionRow[] {
  const w = whereOf(filter, "s.at", "t.tool_name = ? AND t.tool_name <> ''", SESSION_MODEL);
  return sql
    .exec<ToolSessionSqlRow>(
      `SELECT t.tool_name AS tool_name, s.session_id AS session_id, s.at AS at, MAX(t.held) AS held, s.cost AS cost,
      s.covariate AS covariate FROM sessions s JOIN session_tools t ON t.session_key = s.session_id AND t.solo = 0
      WHERE ${w.where} GROUP BY s.session_id, t.tool_name`,
      ...w.bindings,
    )
    .toArray()
    .map(toolSessionOf);
}

/**
 * Per session id: 2 when its bill is here, 1 when only decisions of it are, 0 when neither.
 *
 * @example
 * readLocations(ctx.storage.sql, ["s1", "s2"]) // [2, 0]
 */
export function readLocations(sql: SqlStorage, sessionIds: readonly string[]): number[] {
  return sessionIds.map((id) => {
    if (sql.exec("SELECT 1 FROM sessions WHERE session_id = ?", id).toArray().length > 0) return 2;
    // Its raw decisions may be purged already; its summaries are kept for the retention.
    return sql.exec("SELECT 1 FROM session_tools WHERE session_key = ? AND solo = 0 LIMIT 1", id).toArray().length > 0
      ? 1
      : 0;
  });
}
