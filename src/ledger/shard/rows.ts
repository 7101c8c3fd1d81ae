import type { LedgerDecision, OutcomeReport } from "../model/savings";

/**
 * How the shard's rows read back as the ledger's plain data, and the one
 * fixed form of an outcome that tells a repeat from a conflict. Pure.
 */

type Row = Record<string, SqlStorageValue>;

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
  });
}

/** A `decisions` row (joined with its price row as `row_json`) as a LedgerDecision. */
export function decisionOf(row: Row): LedgerDecision {
  const n = (key: string) => Number(row[key]);
  return {
    decision_id: String(row.id),
    at: n("at"),
    session_id: row.session_id === null ? null : String(row.session_id),
    tool_name: row.tool_name === null ? null : String(row.tool_name),
    model_name: String(row.model_name),
    priced_as: row.priced_as === null ? null : String(row.priced_as),
    pricing_mode: row.pricing_mode === "cache_aware" ? "cache_aware" : "seed",
    reason_code: String(row.reason_code),
    fire: row.fire === 1,
    would_fire: row.would_fire === 1,
    holdout: row.holdout === 1,
    predicted_net_usd: n("predicted_net"),
    inputs: {
      output_tokens: n("output_tokens"),
      horizon: n("horizon"),
      recall_probability: n("recall_probability"),
      cache_hit_rate: n("cache_hit_rate"),
      context_tokens: row.context_tokens === null ? null : n("context_tokens"),
      stub_tokens: n("stub_tokens"),
      recall_input_tokens: n("recall_input_tokens"),
      recall_output_tokens: n("recall_output_tokens"),
      ...(row.offload_at === "retroactive" ? { offload_at: "retroactive" as const, suffix_tokens: n("suffix_tokens") } : {}),
      ...(row.cache_ttl === "1h" ? { cache_ttl: "1h" as const } : {}),
    },
    row: row.row_json === null || row.row_json === undefined ? null : JSON.parse(String(row.row_json)),
    ...(typeof row.plan === "string" ? { plan: JSON.parse(row.plan) } : {}),
  };
}
