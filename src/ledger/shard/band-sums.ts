/**
 * @module ledger/shard/band-sums
 *
 * The learner's p per (tool, model) and size band (recall grows with an
 * output's size: docs/design/learning.md §2.1): fired decisions with an outcome, and how
 * many were recalled, in hourly rows (`band_rollups`, docs/storage.md) kept
 * like the rollups. A decision's band is worked out from the output tokens
 * its row already stores (src/gate/level-sums.ts), so the gate writes nothing
 * more and no decision row changes; only an outcome's upsert does one more
 * statement. Read as ./rollup-reads.ts reads the rollups: whole hours from
 * the table, the partial ends from raw rows while they are kept.
 */
import { BAND_EDGES, SIZE_BANDS, type SizeBand } from "../../gate";
import type { BandSums, ToolModelSums } from "./learning-sums";
import { planWindow } from "./window";

/** A decision's band, from its stored output tokens (the edges of src/gate/level-sums.ts). */
export const BAND_OF = `CASE WHEN d.output_tokens < ${BAND_EDGES[0]} THEN '${SIZE_BANDS[0]}' WHEN d.output_tokens < ${BAND_EDGES[1]} THEN '${SIZE_BANDS[1]}' ELSE '${SIZE_BANDS[2]}' END`;

// One row per (hour, tool, model as priced, band); p counts fired decisions only, as LEARNING_SUMS does.
const KEY = `d.at - d.at % 3600000 AS hour, d.tool_name AS tool_name, COALESCE(d.priced_as, d.model_name) AS model, ${BAND_OF} AS band`;
const FIRED = "FROM decisions d JOIN outcomes o ON o.decision_id = d.id WHERE d.fire = 1 AND d.tool_name IS NOT NULL";
const SUMS = "TOTAL(1) AS p_n, TOTAL(o.recalled) AS p_r";
const GROUP = "GROUP BY 1, 2, 3, 4";

/**
 * Migration 6: the table, backfilled from the raw rows the shard holds (an
 * hour whose raw rows were already purged has no band row: its outcomes
 * count at the tool and model levels only). Idempotent: it may run again.
 */
export const BAND_MIGRATION = `
CREATE TABLE IF NOT EXISTS band_rollups (
  hour INTEGER NOT NULL, tool_name TEXT NOT NULL, model TEXT NOT NULL, band TEXT NOT NULL,
  p_n REAL NOT NULL DEFAULT 0, p_r REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (hour, tool_name, model, band)
) WITHOUT ROWID;
INSERT OR IGNORE INTO band_rollups (hour, tool_name, model, band, p_n, p_r) SELECT ${KEY}, ${SUMS} ${FIRED} ${GROUP};
`;

/** Adds outcomes just stored (bound: a JSON array of their decision ids) to their band rows. */
export const ADD_OUTCOME_BANDS = `INSERT INTO band_rollups (hour, tool_name, model, band, p_n, p_r)
  SELECT ${KEY}, ${SUMS} ${FIRED} AND d.id IN (SELECT value FROM json_each(?)) ${GROUP}
  ON CONFLICT DO UPDATE SET p_n = p_n + excluded.p_n, p_r = p_r + excluded.p_r`;

/** Purges band rows with the rollups (hour < the rollups' cutoff). */
export const PURGE_BANDS = "DELETE FROM band_rollups WHERE hour < ?";

/** The raw twin over a window of decision times: what the table's rows must sum to. */
export const LEARNING_BAND_SUMS = `SELECT d.tool_name AS tool, COALESCE(d.priced_as, d.model_name) AS model, ${BAND_OF} AS band, ${SUMS}
  ${FIRED} AND d.at >= ? AND d.at < ? GROUP BY 1, 2, 3`;

/** A row of LEARNING_BAND_SUMS or readBandSums. */
export type BandSumsRow = { tool: string; model: string; band: SizeBand; p_n: number; p_r: number };

/**
 * Per (tool, model, band), p's sums over [from, to), raw rows kept from `rawFrom`.
 *
 * @example
 * readBandSums(ctx.storage.sql, from, to, rawFrom) // [{ tool: "read_file", model: "m", band: "lt2k", p_n: 12, p_r: 4 }]
 */
export function readBandSums(sql: SqlStorage, from: number, to: number, rawFrom: number): BandSumsRow[] {
  const plan = planWindow(from, to, rawFrom);
  const parts = ["SELECT tool_name AS tool, model, band, p_n, p_r FROM band_rollups WHERE hour >= ? AND hour < ?"];
  const bindings: number[] = [plan.hours.from, plan.hours.to];
  for (const range of plan.raw) {
    parts.push(`SELECT d.tool_name, COALESCE(d.priced_as, d.model_name), ${BAND_OF}, ${SUMS}
      ${FIRED} AND d.at >= ? AND d.at < ? GROUP BY 1, 2, 3`);
    bindings.push(range.from, range.to);
  }
  return sql
    .exec<BandSumsRow>(
      `SELECT tool, model, band, TOTAL(p_n) AS p_n, TOTAL(p_r) AS p_r FROM (${parts.join(" UNION ALL ")})
      GROUP BY tool, model, band HAVING TOTAL(p_n) > 0`,
      ...bindings,
    )
    .toArray();
}

/**
 * The learning sums' rows with each (tool, model)'s bands attached; a band
 * without a fired outcome is absent (its level passes its parent through).
 *
 * @example
 * withBands([{ tool: "grep", model: "m", sums }], [{ tool: "grep", model: "m", band: "lt2k", p_n: 3, p_r: 1 }])[0].bands // { lt2k: { p_n: 3, p_r: 1 } }
 */
export function withBands(rows: readonly ToolModelSums[], bands: readonly BandSumsRow[]): ToolModelSums[] {
  const byKey = new Map<string, Partial<Record<SizeBand, BandSums>>>();
  for (const b of bands) {
    const key = `${b.tool}\u0000${b.model}`;
    const entry = byKey.get(key) ?? {};
    if ((SIZE_BANDS as readonly string[]).includes(b.band)) entry[b.band] = { p_n: b.p_n, p_r: b.p_r };
    byKey.set(key, entry);
  }
  return rows.map((row) => {
    const found = row.tool === null ? undefined : byKey.get(`${row.tool}\u0000${row.model}`);
    return found === undefined ? row : { ...row, bands: found };
  });
}
