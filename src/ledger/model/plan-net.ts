import { type CachePriceRates, planModel, planTerms } from "../../gate";
import type { DecisionInputs, LedgerPlan, OutcomeReport } from "./types";

/**
 * The realized net of a clearing plan (docs/design/ledger.md §3.2): the plan's own
 * formula (docs/design/plan.md §2.2) for the set it stubbed, at h = turns_after,
 * p_i = 1 for a recalled id else 0, q = q̂. Pure.
 */

/**
 * The plan's realized net: for a plan that stubbed (fired), each stubbed id
 * at p = 1 if it is in `recalled_ids` else 0; for one that did not (the
 * holdout), the counterfactual at each candidate's prior p, as a gate
 * decision's missed saving is. Null for an empty plan: there is no set to price.
 *
 * @example
 * planRealizedNet(P1_PLAN, inputs, OPUS, true, { decision_id, turns_after: 4, recalled: false, recalled_ids: [], cached_turns: 4 }) // ≈ P1's net at q = 1
 */
export function planRealizedNet(
  plan: LedgerPlan,
  inputs: DecisionInputs,
  row: CachePriceRates,
  fired: boolean,
  outcome: OutcomeReport,
  q: number,
): number | null {
  if (plan.stub.length === 0) return null;
  const recalled = new Set(outcome.recalled_ids ?? []);
  const segments = plan.segments.map((segment) =>
    segment.id === undefined || !fired ? segment : { ...segment, recall_probability: recalled.has(segment.id) ? 1 : 0 },
  );
  const model = planModel(
    {
      model_name: "",
      horizon: Math.max(0, Math.trunc(outcome.turns_after)),
      recall_probability: inputs.recall_probability,
      cache_hit_rate: q,
      cache_ttl: inputs.cache_ttl ?? "5m",
      recall_placement: inputs.recall_placement ?? "append",
      large_offload_threshold_tokens: plan.large_offload_threshold_tokens,
      stub_tokens: inputs.stub_tokens,
      recall_input_tokens: inputs.recall_input_tokens,
      recall_output_tokens: inputs.recall_output_tokens,
      segments,
    },
    row,
  );
  const stubbed = new Set(plan.stub);
  const members = model.candidates.flatMap((candidate, k) => (stubbed.has(candidate.id) ? [k] : []));
  return members.length === 0 ? null : planTerms(model, members).net;
}

/**
 * Why a plan's outcome cannot be its, or null: recalled ids must be ids the
 * plan stubbed, and `recalled` must say whether there are any.
 *
 * @example
 * planMismatch(plan, true, { ..., recalled: true, recalled_ids: ["nope"] }) // { path: "recalled_ids.0", message: "..." }
 */
export function planMismatch(
  plan: LedgerPlan,
  fired: boolean,
  outcome: OutcomeReport,
): { path: string; message: string } | null {
  const ids = outcome.recalled_ids ?? [];
  const stubbed = new Set(fired ? plan.stub : []);
  const stray = ids.findIndex((id) => !stubbed.has(id));
  if (stray >= 0) return { path: `recalled_ids.${stray}`, message: "must be an id the plan stubbed" };
  if (outcome.recalled !== ids.length > 0) {
    return {
      path: "recalled",
      message:
        "must be true exactly when recalled_ids names an id (for a plan, recalled_ids says which stubs were recalled)",
    };
  }
  return null;
}
