import type { CacheTtl, PlanOutcome } from "../gate";
import { fitBlobs, MAX_INDEX_BYTES, REASON_BLOB, truncateUtf8, writePoint } from "./point";

/** blob4 of a clearing plan's data point: what tells plans from gate decisions in the dataset. */
export const PLAN_KIND = "plan";

/** Everything one data point records about one clearing plan. */
export interface PlanRecord {
  tenant: string;
  model_name: string;
  priced_as: string | null;
  /** The instant of the scheduled price change in force; null for the row's own prices (or no row). */
  price_effective_at?: string | null;
  stale_age_seconds: number | null;
  outcome: PlanOutcome;
  /** The plan's id in the outcomes ledger, and the agent's tool and session, when sent. */
  decision_id?: string;
  tool_name?: string | null;
  session_id?: string | null;
  inputs: {
    horizon: number;
    recall_probability: number;
    cache_hit_rate: number;
    cache_ttl: CacheTtl;
    large_offload_threshold_tokens: number;
    stub_tokens: number;
    recall_input_tokens: number;
    recall_output_tokens: number;
    history_tokens: number;
    segments: number;
  };
}

/** What a plan's and a clearing decision's data points share: who asked, for what, and the decision's id. */
export interface PlanLikeHead {
  tenant: string;
  model_name: string;
  priced_as: string | null;
  price_effective_at?: string | null;
  stale_age_seconds: number | null;
  decision_id?: string;
  tool_name?: string | null;
  session_id?: string | null;
}

/**
 * The data point of a decision about outputs already in the cached history
 * (a plan, a server-side clearing): blobs at the gate decision's positions,
 * blob4 the kind, blob12 the kind's own; the doubles are the caller's.
 *
 * @example
 * planLikePoint(record, "plan", outcome, "5m", "", doubles).blobs[3] // "plan"
 */
export function planLikePoint(
  head: PlanLikeHead,
  kind: string,
  outcome: { reason_code: string; reason: string },
  cacheTtl: string,
  blob12: string,
  doubles: number[],
): AnalyticsEngineDataPoint {
  return {
    indexes: [truncateUtf8(head.tenant, MAX_INDEX_BYTES)],
    blobs: fitBlobs(
      [
        head.model_name, // blob1
        head.priced_as ?? "", // blob2
        outcome.reason_code, // blob3
        kind, // blob4
        head.stale_age_seconds === null ? "" : "stale", // blob5
        outcome.reason, // blob6: the one shortened if the total runs over
        head.decision_id ?? "", // blob7: the decision's id in the outcomes ledger
        head.tool_name ?? "", // blob8
        head.session_id ?? "", // blob9
        "retroactive", // blob10: offload_at; both act on outputs already in the cached history
        cacheTtl, // blob11
        blob12, // blob12: the kind's own (a plan takes no prior ranges: "")
        "", // blob13: the lifecycle is the gate's field; left empty
        head.price_effective_at ?? "", // blob14: as a decision's, "" for the row's own prices
      ],
      REASON_BLOB,
    ),
    doubles,
  };
}

/**
 * A plan's data point, in the same dataset as the gate's decisions, told
 * apart by blob4 = "plan". Fields that mean the same as in a decision sit at
 * the same position (model, canonical, reason code, staleness, reason, the
 * priors); docs/analytics.md documents the order. Append, never reorder.
 *
 * @example
 * toPlanDataPoint(record) // { indexes: ["default"], blobs: ["claude-opus-4-6", ..., "plan_positive", "plan", ...], doubles: [1, 0.1777, ...] }
 */
export function toPlanDataPoint(record: PlanRecord): AnalyticsEngineDataPoint {
  const { outcome, inputs } = record;
  return planLikePoint(record, PLAN_KIND, outcome, inputs.cache_ttl, "", [
    outcome.stub.length > 0 ? 1 : 0, // double1: stubs anything
    outcome.net_saving_usd, // double2
    outcome.keep_cost_usd, // double3
    outcome.plan_cost_usd, // double4
    outcome.stub.length, // double5: outputs stubbed
    outcome.candidates.length, // double6: candidates (segments with an id)
    inputs.horizon, // double7
    inputs.recall_probability, // double8: the prior
    inputs.large_offload_threshold_tokens, // double9
    inputs.stub_tokens, // double10
    inputs.recall_input_tokens, // double11
    inputs.recall_output_tokens, // double12
    record.stale_age_seconds ?? 0, // double13
    outcome.rewrite_from_tokens, // double14
    inputs.cache_hit_rate, // double15
    inputs.history_tokens, // double16
    outcome.rewritten_tokens, // double17
    inputs.segments, // double18
  ]);
}

/** Writes one plan's data point; like a decision's, a failed write is logged and dropped. */
export function recordPlan(dataset: AnalyticsEngineDataset, record: PlanRecord): void {
  writePoint(dataset, toPlanDataPoint(record));
}
