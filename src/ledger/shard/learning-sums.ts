/**
 * The learner's sums (docs/design/learning.md §1), per (tool, model), as one shard
 * answers them over the learning window: the shape of its rows, and the
 * queries over raw rows that the shard's rollups (./rollup-reads.ts) must
 * equal (test/ledger/ledger-rollup.test.ts). src/learning/refresh/refresh.ts merges them
 * across a tenant's shards.
 */
import type { LevelSums, SizeBand } from "../../gate";

export type { LevelSums };

/** p's sums over one size band's fired decisions (./band-sums.ts). */
export interface BandSums {
  p_n: number;
  p_r: number;
}

/** One (tool, model)'s sums in one shard; `tool` is null for decisions without a tool_name. */
export interface ToolModelSums {
  tool: string | null;
  model: string;
  sums: LevelSums;
  /** p per size band (src/gate/level-sums.ts), the bands with a fired outcome only; absent when none. */
  bands?: Partial<Record<SizeBand, BandSums>>;
}

// Whether the outcome sent cached_turns (it is kept in the report, null when not sent).
const CACHED = "json_extract(o.report, '$.cached_turns')";

/**
 * Decisions with an outcome in the window (by decision time), grouped by tool
 * and the canonical model that priced them (the requested name when none did).
 * p counts fired decisions only: recall is only observed when an output was
 * stubbed (held-out and breaker-stopped decisions did not fire).
 */
export const LEARNING_SUMS = `SELECT d.tool_name AS tool, COALESCE(d.priced_as, d.model_name) AS model,
  TOTAL(d.fire) AS p_n,
  TOTAL(CASE WHEN d.fire = 1 THEN o.recalled END) AS p_r,
  COUNT(*) AS h_n,
  TOTAL(o.turns_after) AS h_sum,
  TOTAL(o.turns_after * o.turns_after) AS h_sumsq,
  TOTAL(${CACHED} IS NOT NULL) AS q_n,
  TOTAL(${CACHED}) AS q_cached,
  TOTAL(CASE WHEN ${CACHED} IS NOT NULL THEN o.turns_after END) AS q_turns
  FROM decisions d JOIN outcomes o ON o.decision_id = d.id
  WHERE d.at >= ? AND d.at < ? GROUP BY tool, model`;

/** A row of LEARNING_SUMS (and of the rollups' twin, ./rollup-reads.ts readLearningSums): TOTAL()s and COUNT()s, never null. */
export type LearningSumsRow = { tool: string | null; model: string } & { [K in keyof LevelSums]: number };

/**
 * A row of LEARNING_SUMS as sums.
 *
 * @example
 * toolModelSumsOf({ tool: "read_file", model: "claude-opus-4-6", p_n: 12, p_r: 10, ... }).sums.p_r // 10
 */
export function toolModelSumsOf(row: LearningSumsRow): ToolModelSums {
  return {
    tool: row.tool,
    model: row.model,
    sums: {
      p_n: row.p_n,
      p_r: row.p_r,
      h_n: row.h_n,
      h_sum: row.h_sum,
      h_sumsq: row.h_sumsq,
      q_n: row.q_n,
      q_cached: row.q_cached,
      q_turns: row.q_turns,
    },
  };
}

/** One (tool, session)'s summed net over its fired decisions with an outcome, as the gate priced each: the breaker's ψ without a holdout. */
export interface ToolNetRow {
  tool_name: string;
  /** The session, or the decision's own id when it had none (its own cluster). */
  session_id: string;
  /** When the session's last outcome arrived (ms): the order of the sequence. */
  at: number;
  net: number;
  /** Its fired decisions with a priced outcome; those priced by the seed; cache-aware ones whose outcome reported the cache. */
  fired: number;
  seed: number;
  cache_reported: number;
}

/** Per (tool, session): the net of its fired decisions with an outcome as the gate priced them, in the window. */
export const TOOL_NETS = `SELECT d.tool_name AS tool_name, COALESCE(d.session_id, d.id) AS session_id, MAX(o.at) AS at,
  TOTAL(COALESCE(o.gate_net, o.realized_net)) AS net, COUNT(*) AS fired,
  TOTAL(d.pricing_mode = 'seed') AS seed, TOTAL(d.pricing_mode <> 'seed' AND o.q_hat IS NOT NULL) AS cache_reported
  FROM decisions d JOIN outcomes o ON o.decision_id = d.id
  WHERE d.fire = 1 AND o.realized_net IS NOT NULL AND d.tool_name IS NOT NULL AND d.at >= ? AND d.at < ?
  GROUP BY d.tool_name, COALESCE(d.session_id, d.id)`;

/** A row of TOOL_NETS (and of the summaries' twin, ./rollup-reads.ts readToolNets, whose MAX(net_at) may be null). */
export type ToolNetSqlRow = {
  tool_name: string;
  session_id: string;
  at: number | null;
  net: number;
  fired: number;
  seed: number;
  cache_reported: number;
};

/**
 * A row of TOOL_NETS.
 *
 * @example
 * toolNetOf({ tool_name: "read_file", session_id: "s1", at: 5, net: -0.02, fired: 1, seed: 1, cache_reported: 0 }).net // -0.02
 */
export function toolNetOf(row: ToolNetSqlRow): ToolNetRow {
  return {
    tool_name: row.tool_name,
    session_id: row.session_id,
    at: row.at ?? 0,
    net: row.net,
    fired: row.fired,
    seed: row.seed,
    cache_reported: row.cache_reported,
  };
}
