/**
 * The per-tool verdicts' (session, tool) pairs, packed per tool and hour of
 * the bill (`tool_chunks`, docs/ledger.md, "Rollups"): the confidence
 * sequence needs every session in report order (docs/design/ledger.md §4.2), so the
 * report reads them all, but as one row per tool and hour rather than one
 * per pair. A chunk is derived from the bills and the summaries and packed
 * again from them whenever a write changes its pairs.
 */

import type { ToolSessionRow } from "../model";
import { covariateCell, orderTools, packRows, type ToolPairList } from "../stats";
import { HOUR_MS } from "./rollup-sql";
import type { SumsFilter } from "./sql";

/** Migration 5's table (filled by backfillChunks: packing takes code, not SQL). */
export const CHUNK_MIGRATION = `
CREATE TABLE IF NOT EXISTS tool_chunks (
  tool_name TEXT NOT NULL, hour INTEGER NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL, ids TEXT NOT NULL,
  PRIMARY KEY (tool_name, hour)
) WITHOUT ROWID;
`;

// One chunk's pairs, as the verdicts' raw-row query gives them (rollup-reads.ts, readToolSessions), in report order.
const PAIRS_OF_CHUNK = `SELECT s.at AS at, s.session_id AS session_id, MAX(t.held) AS held, s.cost AS cost,
  s.covariate AS covariate
  FROM sessions s JOIN session_tools t ON t.session_key = s.session_id AND t.solo = 0 AND t.tool_name = ?
  WHERE s.at >= ? AND s.at < ? GROUP BY s.session_id ORDER BY s.at, s.session_id`;
const CHUNKS =
  "SELECT DISTINCT t.tool_name AS tool, s.at - s.at % 3600000 AS hour FROM session_tools t JOIN sessions s ON s.session_id = t.session_key WHERE t.solo = 0";

/** The chunks holding pairs of some sessions (bound: a JSON array of session ids). */
export const CHUNKS_OF_SESSIONS = `${CHUNKS} AND t.session_key IN (SELECT value FROM json_each(?))`;
/** The chunks holding pairs whose summaries before an hour (bound) the purge deletes. */
export const CHUNKS_BEFORE = `${CHUNKS} AND t.hour < ?`;
/** A row of CHUNKS (and of the queries built on it): one chunk's tool and hour. */
export type ChunkKey = { tool: string; hour: number };
/** A row of PAIRS_OF_CHUNK: every column NOT NULL but the covariate (migration 8's, null when not reported). */
type PairSqlRow = { at: number; session_id: string; held: number; cost: number; covariate: number | null };

/**
 * n pairs as bill-time, cost, covariate (NaN: none) and arm arrays over one buffer (a chunk's blob):
 * 8 + 8 + 8 + 1 bytes a pair since migration 8, which packed every chunk again; the arm last, so
 * each Float64Array starts on a multiple of 8.
 */
function packed(n: number, buffer: ArrayBuffer = new ArrayBuffer(n * 25)) {
  return {
    buffer,
    at: new Float64Array(buffer, 0, n),
    cost: new Float64Array(buffer, n * 8, n),
    covariate: new Float64Array(buffer, n * 16, n),
    held: new Uint8Array(buffer, n * 24, n),
  };
}

/**
 * Packs the given chunks again from the bills and summaries (a chunk left
 * without pairs is deleted). `chunks`: rows of `tool` and `hour`.
 *
 * @example
 * repackChunks(sql, sql.exec(CHUNKS_OF_SESSIONS, JSON.stringify(["s1"])))
 */
export function repackChunks(sql: SqlStorage, chunks: Iterable<ChunkKey>): void {
  const seen = new Set<string>();
  for (const chunk of [...chunks]) {
    const { tool, hour } = chunk;
    if (seen.has(`${hour}/${tool}`)) continue;
    seen.add(`${hour}/${tool}`);
    const rows = sql.exec<PairSqlRow>(PAIRS_OF_CHUNK, tool, hour, hour + HOUR_MS).toArray();
    if (rows.length === 0) {
      sql.exec("DELETE FROM tool_chunks WHERE tool_name = ? AND hour = ?", tool, hour);
      continue;
    }
    const p = packed(rows.length);
    rows.forEach((row, i) => {
      p.at[i] = row.at;
      p.cost[i] = row.cost;
      p.covariate[i] = covariateCell(row.covariate);
      p.held[i] = row.held === 1 ? 1 : 0;
    });
    sql.exec(
      "INSERT OR REPLACE INTO tool_chunks (tool_name, hour, n, data, ids) VALUES (?, ?, ?, ?, ?)",
      tool,
      hour,
      rows.length,
      p.buffer,
      rows.map((r) => r.session_id).join("\n"),
    );
  }
}

/**
 * Migrations 5's and 8's backfill: every chunk of the bills and summaries a shard holds, packed (again).
 *
 * @example
 * backfillChunks(ctx.storage.sql) // after the schema-5 step, in its transaction
 */
export function backfillChunks(sql: SqlStorage): void {
  repackChunks(sql, sql.exec<ChunkKey>(CHUNKS));
}

/**
 * After the purge deleted bills before `cutoff`: drops the chunks of hours before it and packs its hour's again.
 *
 * @example
 * trimChunks(sql, Date.now() - 30 * 86_400_000)
 */
export function trimChunks(sql: SqlStorage, cutoff: number): void {
  const hour = cutoff - (cutoff % HOUR_MS);
  sql.exec("DELETE FROM tool_chunks WHERE hour < ?", hour);
  repackChunks(sql, sql.exec<ChunkKey>("SELECT tool_name AS tool, hour FROM tool_chunks WHERE hour = ?", hour));
}

/**
 * The window's pairs per tool in report order, from the chunks of the
 * hours it touches (the pairs of a partial hour kept when their bill is in
 * [from, to)). For a model (the session's, as requested or priced), from
 * `rowsOf`: the raw-row form.
 *
 * @example
 * readToolPairs(sql, { from, to }, () => readToolSessions(sql, filter)) // [{ tool_name: "grep", at, cost, held, ids }, ...]
 */
export function readToolPairs(sql: SqlStorage, filter: SumsFilter, rowsOf: () => ToolSessionRow[]): ToolPairList[] {
  if (filter.model !== undefined) return packRows(rowsOf());
  const { from, to } = filter;
  const tool = filter.tool_name === undefined ? "" : " AND tool_name = ? AND tool_name <> ''";
  const chunks = sql
    .exec(
      `SELECT tool_name, hour, n, data, ids FROM tool_chunks WHERE hour >= ? AND hour < ?${tool} ORDER BY tool_name, hour`,
      from - (from % HOUR_MS),
      to,
      ...(filter.tool_name === undefined ? [] : [filter.tool_name]),
    )
    .raw();
  const tools = new Map<
    string,
    { n: number; parts: { chunk: ReturnType<typeof packed>; ids: string; keep: number[] | null }[] }
  >();
  for (const [name, hour, n, data, ids] of chunks) {
    const chunk = packed(
      Number(n),
      data instanceof ArrayBuffer ? data : new Uint8Array(data as unknown as ArrayLike<number>).slice().buffer,
    );
    // An edge hour keeps only the pairs billed inside the window.
    const edge = Number(hour) < from || Number(hour) + HOUR_MS > to;
    const keep = edge
      ? Array.from(chunk.at.keys()).filter((i) => (chunk.at[i] as number) >= from && (chunk.at[i] as number) < to)
      : null;
    const held = tools.get(String(name)) ?? { n: 0, parts: [] };
    held.n += keep?.length ?? chunk.at.length;
    held.parts.push({ chunk, ids: String(ids), keep });
    tools.set(String(name), held);
  }
  return orderTools(
    [...tools].map(([tool_name, { n, parts }]) => {
      const out = packed(n);
      const ids: string[] = [];
      let k = 0;
      for (const { chunk, ids: joined, keep } of parts) {
        if (keep === null) {
          out.at.set(chunk.at, k);
          out.cost.set(chunk.cost, k);
          out.covariate.set(chunk.covariate, k);
          out.held.set(chunk.held, k);
          k += chunk.at.length;
          ids.push(joined);
          continue;
        }
        const split = joined.split("\n");
        for (const i of keep) {
          [out.at[k], out.cost[k], out.covariate[k], out.held[k]] = [
            chunk.at[i] as number,
            chunk.cost[i] as number,
            chunk.covariate[i] as number,
            chunk.held[i] as number,
          ];
          k++;
        }
        if (keep.length > 0) ids.push(keep.map((i) => split[i]).join("\n"));
      }
      return { tool_name, at: out.at, cost: out.cost, covariate: out.covariate, held: out.held, ids: ids.join("\n") };
    }),
  );
}
