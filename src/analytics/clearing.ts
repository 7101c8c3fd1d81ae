import type { CacheTtl, ClearingOutcome } from "../gate";
import { planLikePoint } from "./plan";
import { writePoint } from "./point";

/**
 * @module One data point per recorded POST /v1/context-management answer:
 * a server-side clearing decision, in the dataset beside the gate's
 * decisions and the plans. docs/analytics.md documents the order.
 */

/** blob4 of a clearing decision's data point: what tells it from decisions and plans in the dataset. */
export const CLEARING_KIND = "clearing";

/** Everything one data point records about one clearing decision. */
export interface ClearingRecord {
  tenant: string;
  model_name: string;
  priced_as: string | null;
  price_effective_at: string | null;
  stale_age_seconds: number | null;
  outcome: ClearingOutcome;
  decision_id: string;
  tool_name: string | null;
  session_id: string | null;
  inputs: {
    horizon: number;
    recall_probability: number;
    cache_hit_rate: number;
    cache_ttl: CacheTtl;
    placeholder_tokens: number;
    recall_input_tokens: number;
    recall_output_tokens: number;
    history_tokens: number;
    segments: number;
    tool_results: number;
  };
}

/**
 * A clearing decision's data point: the blobs at a plan's positions
 * (../analytics/plan.ts), blob4 = "clearing"; the doubles are the rule's.
 * Append, never reorder.
 *
 * @example
 * toClearingDataPoint(record) // { indexes: ["default"], blobs: ["claude-opus-4-6", ..., "clear_positive", "clearing", ...], doubles: [1, 0.2791, ...] }
 */
export function toClearingDataPoint(record: ClearingRecord): AnalyticsEngineDataPoint {
  const { outcome, inputs } = record;
  const exclude = outcome.edit === null ? "" : outcome.edit.exclude_tools.join(",");
  return planLikePoint(record, CLEARING_KIND, outcome, inputs.cache_ttl, exclude, [
    outcome.context_management === null ? 0 : 1, // double1: an edit was sent
    outcome.net_usd, // double2: the best rule's net
    outcome.keep_cost_usd, // double3
    outcome.clear_cost_usd, // double4
    outcome.cleared.length, // double5: results the rule clears
    inputs.tool_results, // double6: tool results (segments with an id)
    inputs.horizon, // double7
    inputs.recall_probability, // double8
    outcome.edit?.keep.value ?? 0, // double9: keep
    inputs.placeholder_tokens, // double10
    inputs.recall_input_tokens, // double11
    inputs.recall_output_tokens, // double12
    record.stale_age_seconds ?? 0, // double13
    outcome.edit?.clear_at_least.value ?? 0, // double14: clear_at_least
    inputs.cache_hit_rate, // double15
    inputs.history_tokens, // double16
    outcome.cleared_tokens, // double17
    inputs.segments, // double18: segments
    outcome.left_on_table_usd, // double19
  ]);
}

/** Writes one clearing decision's data point; a failed write is logged and dropped, as a plan's. */
export function recordClearing(dataset: AnalyticsEngineDataset, record: ClearingRecord): void {
  writePoint(dataset, toClearingDataPoint(record));
}
