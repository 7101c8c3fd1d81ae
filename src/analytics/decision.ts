import type { GateOutcome, LifecycleStatus, PricingMode } from "../gate";
import { fitBlobs, MAX_INDEX_BYTES, REASON_BLOB, truncateUtf8, writePoint } from "./point";

/** Everything one data point records about one decision. */
export interface DecisionRecord {
  tenant: string;
  model_name: string;
  priced_as: string | null;
  /** The instant of the scheduled price change in force; null for the row's own prices (or no row). */
  price_effective_at?: string | null;
  pricing_mode: PricingMode;
  stale_age_seconds: number | null;
  /** The requested model's lifecycle, when its row has dates; null otherwise. */
  lifecycle: LifecycleStatus | null;
  /** `would_fire` is set on holdout answers: the verdict outside the holdout. */
  decision: GateOutcome & { would_fire?: boolean };
  inputs: {
    output_tokens: number;
    horizon: number;
    recall_probability: number;
    large_offload_threshold_tokens: number;
    stub_tokens: number;
    recall_input_tokens: number;
    recall_output_tokens: number;
    /** Set in cache_aware mode only. */
    cache_hit_rate?: number;
    context_tokens?: number;
    offload_at?: string;
    cache_ttl?: string;
    horizon_range?: readonly number[];
    recall_probability_range?: readonly number[];
    cache_hit_rate_range?: readonly number[];
  };
  /** The decision's id in the outcomes ledger, and the agent's tool and session, when sent. */
  decision_id?: string;
  tool_name?: string | null;
  session_id?: string | null;
  /** Where each prior came from: request, learned or config (docs/design/learning.md §3.2). */
  prior_sources?: Record<"horizon" | "recall_probability" | "cache_hit_rate", { source: string }>;
}

/**
 * The one place that owns the order of blobs and doubles; docs/analytics.md
 * documents the same order. Append new fields at the end, never reorder: SQL
 * that ops keep refers to blobN and doubleN by position.
 *
 * @example
 * toDataPoint(record) // { indexes: ["default"], blobs: ["gpt-5", "gpt-5", "net_positive", ...], doubles: [1, 0.38, ...] }
 */
export function toDataPoint(record: DecisionRecord): AnalyticsEngineDataPoint {
  const { decision, inputs } = record;
  const blobs = fitBlobs(
    [
      record.model_name, // blob1
      record.priced_as ?? "", // blob2
      decision.reason_code, // blob3
      record.pricing_mode, // blob4
      record.stale_age_seconds === null ? "" : "stale", // blob5
      decision.reason, // blob6: the one shortened if the total runs over
      record.decision_id ?? "", // blob7
      record.tool_name ?? "", // blob8
      record.session_id ?? "", // blob9
      inputs.offload_at ?? "", // blob10: "" in seed mode
      inputs.cache_ttl ?? "", // blob11: "" in seed mode
      decision.worst_case === null ? "" : "ranged", // blob12: the worst corner's net is in the reason
      record.lifecycle === null || record.lifecycle === "active" ? "" : record.lifecycle, // blob13
      record.price_effective_at ?? "", // blob14: "" for the row's own prices
      record.prior_sources?.horizon.source ?? "", // blob15: request, learned, replay, config, explore, family or pooled
      record.prior_sources?.recall_probability.source ?? "", // blob16
      record.prior_sources?.cache_hit_rate.source ?? "", // blob17
    ],
    REASON_BLOB,
  );
  return {
    indexes: [truncateUtf8(record.tenant, MAX_INDEX_BYTES)],
    blobs,
    doubles: [
      decision.fire ? 1 : 0, // double1
      decision.net_saving_usd, // double2
      decision.reprefill_saving_usd, // double3
      decision.stub_carry_cost_usd, // double4
      decision.expected_recall_hop_cost_usd, // double5
      inputs.output_tokens, // double6
      inputs.horizon, // double7
      inputs.recall_probability, // double8
      inputs.large_offload_threshold_tokens, // double9
      inputs.stub_tokens, // double10
      inputs.recall_input_tokens, // double11
      inputs.recall_output_tokens, // double12
      record.stale_age_seconds ?? 0, // double13
      decision.context_premium_saving_usd, // double14
      inputs.cache_hit_rate ?? 0, // double15: 0 in seed mode (blob4 says which)
      inputs.context_tokens ?? 0, // double16
      decision.break_even_horizon ?? -1, // double17: -1 for null
      decision.break_even_output_tokens ?? -1, // double18: -1 for null
      (decision.would_fire ?? decision.fire) ? 1 : 0, // double19: the verdict outside the holdout
      decision.suffix_rewrite_cost_usd, // double20: the last double Analytics Engine takes
    ],
  };
}

/**
 * Writes one data point. Telemetry never fails a decision: a write that
 * throws is logged and dropped.
 */
export function recordDecision(dataset: AnalyticsEngineDataset, record: DecisionRecord): void {
  writePoint(dataset, toDataPoint(record));
}
