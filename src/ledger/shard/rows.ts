import type { LedgerDecision, OutcomeReport } from "../model";
import type { DecisionRow } from "./sql";

/**
 * How the shard's rows read back as the ledger's plain data, and the one
 * fixed form of an outcome that tells a repeat from a conflict. Pure.
 */

/**
 * An outcome's content in one fixed key order: two reports are the same
 * report exactly when these strings are equal.
 */
export function canonicalOutcome(item: OutcomeReport): string {
  return JSON.stringify({
    decision_id: item.decision_id,
    turns_after: item.turns_after,
    recalled: item.recalled,
    cached_turns: item.cached_turns ?? null,
    context_tokens: item.context_tokens ?? null,
    // Absent for a gate decision's outcome, so reports stored before plans were priced still match.
    ...(item.recalled_ids === undefined ? {} : { recalled_ids: [...new Set(item.recalled_ids)].sort() }),
    // Absent when not sent, so reports stored before the recall range still match.
    ...(item.recalled_high === undefined ? {} : { recalled_high: item.recalled_high }),
    // Likewise absent for every outcome but a server-side clearing decision's.
    ...(item.cleared_tool_uses === undefined ? {} : { cleared_tool_uses: item.cleared_tool_uses }),
    ...(item.cleared_input_tokens === undefined ? {} : { cleared_input_tokens: item.cleared_input_tokens }),
  });
}

/** A `decisions` row (joined with its price row as `row_json`) as a LedgerDecision. */
export function decisionOf(row: DecisionRow): LedgerDecision {
  return {
    decision_id: row.id,
    at: row.at,
    session_id: row.session_id,
    tool_name: row.tool_name,
    model_name: row.model_name,
    priced_as: row.priced_as,
    pricing_mode: row.pricing_mode === "cache_aware" ? "cache_aware" : "seed",
    reason_code: row.reason_code,
    fire: row.fire === 1,
    would_fire: row.would_fire === 1,
    holdout: row.holdout === 1,
    predicted_net_usd: row.predicted_net,
    inputs: {
      output_tokens: row.output_tokens,
      horizon: row.horizon,
      recall_probability: row.recall_probability,
      cache_hit_rate: row.cache_hit_rate,
      context_tokens: row.context_tokens,
      stub_tokens: row.stub_tokens,
      recall_input_tokens: row.recall_input_tokens,
      recall_output_tokens: row.recall_output_tokens,
      // A plan's rows always hold it; a row written without one reads as no suffix.
      ...(row.offload_at === "retroactive"
        ? { offload_at: "retroactive" as const, suffix_tokens: row.suffix_tokens ?? 0 }
        : {}),
      ...(row.cache_ttl === "1h" ? { cache_ttl: "1h" as const } : {}),
      // NULL (every row before schema 11) is appended, the default.
      ...(row.recall_placement === "in_place" ? { recall_placement: "in_place" as const } : {}),
    },
    row: row.row_json === null || row.row_json === undefined ? null : JSON.parse(row.row_json),
    ...(typeof row.plan === "string" ? { plan: JSON.parse(row.plan) } : {}),
  };
}
