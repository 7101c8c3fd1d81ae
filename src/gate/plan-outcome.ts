import { cacheAwareParams, cacheAwareTerms } from "./cache-aware";
import { DEFAULT_CACHE_AWARE_FLOOR_TOKENS, type PLAN_REASON_CODES } from "./constants";
import { clampHorizon, clampProbability } from "./decision";
import { gapReason, missingCachePrice } from "./gaps";
import { aloneRequest, type PlanInputs, type PlanModel, type PlanTerms, planModel } from "./plan";
import { bestPlan } from "./plan-search";
import { pyFixed, pyInt, pyNumber, pyRepr } from "./pyformat";
import type { CachePriceRates, PricingLookup } from "./types";

/** Why a plan came out as it did, in a form machines can group by. */
export type PlanReasonCode = (typeof PLAN_REASON_CODES)[number];

/** One candidate's line in the answer. */
export interface PlanCandidateOutcome {
  id: string;
  stubbed: boolean;
  /**
   * The retroactive gate's net for stubbing this candidate alone; null where
   * the gate would not price it (below the pre-filter, or the plan was not priced).
   */
  alone_net_saving_usd: number | null;
}

/** The clearing plan: what to stub, what it saves, and where the cached prefix breaks. */
export interface PlanOutcome {
  /** Ids to stub on the next turn, in history order; empty: keep everything. */
  stub: string[];
  net_saving_usd: number;
  keep_cost_usd: number;
  plan_cost_usd: number;
  /** The prefix that stays cached: tokens before the earliest stub (all of them when nothing is stubbed). */
  rewrite_from_tokens: number;
  /** Tokens written again on the next turn: the stubs and everything after the earliest one. */
  rewritten_tokens: number;
  candidates: PlanCandidateOutcome[];
  reason: string;
  reason_code: PlanReasonCode;
  /**
   * false when the search's node budget ended it before it was done: the
   * plan is the best found (still never worse than stubbing nothing), not
   * provably the best. true when nothing needed searching.
   */
  exact: boolean;
}

/**
 * Decides a clearing plan from a pricing lookup's tagged result. Like the
 * gate, the pre-filter comes first (no candidate at or above the threshold:
 * `no_candidates`, and no pricing is needed), then the unpriced-model rule;
 * an unavailable lookup never stubs, and neither does a plan that would have
 * to guess a cache-read price (`pricing_incomplete`, the gate's gap rule).
 *
 * @example
 * decidePlan(P1, { status: "priced", row: OPUS, canonical: "claude-opus-4-6" })
 * // { stub: ["c1", "c2", "c3"], net_saving_usd: ≈0.277302, reason_code: "plan_positive", ... }
 */
export function decidePlan(inputs: PlanInputs, lookup: PricingLookup<CachePriceRates>): PlanOutcome {
  if (!hasEligible(inputs)) return unpriced(inputs, "no_candidates", noCandidatesReason(inputs));
  switch (lookup.status) {
    case "unpriced":
      return unpriced(inputs, "unpriced", `no MODEL_PRICING row for ${pyRepr(inputs.model_name)}`);
    case "unavailable":
      return unpriced(
        inputs,
        "pricing_unavailable",
        `pricing unavailable for ${pyRepr(inputs.model_name)}: ${lookup.detail}`,
      );
    case "priced":
      return pricedPlan(inputs, lookup.row);
    default:
      throw new Error(`unhandled pricing lookup: ${JSON.stringify(lookup satisfies never)}`);
  }
}

/**
 * Whether any candidate reaches the pre-filter: otherwise there is nothing
 * to price and the route skips the pricing lookup.
 */
export function hasEligible(inputs: PlanInputs): boolean {
  const threshold = thresholdOf(inputs);
  return inputs.segments.some((segment) => segment.id !== undefined && segment.tokens >= threshold);
}

function thresholdOf(inputs: PlanInputs): number {
  return inputs.large_offload_threshold_tokens ?? DEFAULT_CACHE_AWARE_FLOOR_TOKENS;
}

function totalOf(inputs: PlanInputs): number {
  let total = 0;
  for (const segment of inputs.segments) total += segment.tokens;
  return total;
}

function unpriced(inputs: PlanInputs, code: PlanReasonCode, reason: string): PlanOutcome {
  return {
    stub: [],
    net_saving_usd: 0,
    keep_cost_usd: 0,
    plan_cost_usd: 0,
    rewrite_from_tokens: totalOf(inputs),
    rewritten_tokens: 0,
    candidates: inputs.segments.flatMap((s) =>
      s.id === undefined ? [] : [{ id: s.id, stubbed: false, alone_net_saving_usd: null }],
    ),
    reason,
    reason_code: code,
    exact: true,
  };
}

function noCandidatesReason(inputs: PlanInputs): string {
  const count = inputs.segments.filter((segment) => segment.id !== undefined).length;
  if (count === 0) return "no candidates: no segment has an id";
  return `no candidates at or above large_offload_threshold (${pyNumber(thresholdOf(inputs))} tokens): ${count} below it`;
}

function pricedPlan(requested: PlanInputs, row: CachePriceRates): PlanOutcome {
  // The gate's gap rule: no prompt cache prices at q = 0; a read price the row lacks is never guessed.
  const inputs = row.prompt_cache === false ? { ...requested, cache_hit_rate: 0 } : requested;
  const model = planModel(inputs, row);
  const choice = bestPlan(model);
  if (choice === null) throw new Error("a plan with an eligible candidate found no plan");
  const missing = missingCachePrice([model.keep, choice.terms.stubbed], model.q);
  const stubbed = new Set(
    choice.terms.net > 0 && missing === null ? choice.members.map((k) => model.candidates[k]!.segment) : [],
  );
  // Each candidate alone is the retroactive gate's own decision for it.
  const alone = new Map(
    model.candidates.map((c) => [
      c.segment,
      cacheAwareTerms(row, cacheAwareParams(aloneRequest(inputs, model, c))).net,
    ]),
  );
  const candidates = inputs.segments.flatMap((segment, index) =>
    segment.id === undefined
      ? []
      : [{ id: segment.id, stubbed: stubbed.has(index), alone_net_saving_usd: alone.get(index) ?? null }],
  );
  const positive = choice.terms.net > 0 && missing === null;
  const terms = choice.terms;
  return {
    stub: candidates.filter((c) => c.stubbed).map((c) => c.id),
    net_saving_usd: positive ? terms.net : 0,
    keep_cost_usd: terms.keepCost,
    plan_cost_usd: positive ? terms.planCost : terms.keepCost,
    rewrite_from_tokens: positive ? terms.rewriteFrom : model.total,
    rewritten_tokens: positive ? terms.rewritten : 0,
    candidates,
    reason:
      (missing === null ? "" : gapReason(missing, model.q, inputs.model_name, "nothing stubbed")) +
      planReason(inputs, model, choice.members.length, terms, positive) +
      (choice.exact ? "" : "; search cut at its node budget"),
    reason_code: missing !== null ? "pricing_incomplete" : positive ? "plan_positive" : "plan_not_positive",
    exact: choice.exact,
  };
}

function planReason(inputs: PlanInputs, model: PlanModel, size: number, terms: PlanTerms, positive: boolean): string {
  const of = `${size} of ${model.candidates.length} candidates`;
  const money = `net=$${pyFixed(terms.net, 4)} (keep=$${pyFixed(terms.keepCost, 4)} − plan=$${pyFixed(terms.planCost, 4)})`;
  const head = positive
    ? `stub ${of}: ${money}; cached prefix ${pyNumber(terms.rewriteFrom)} of ${pyNumber(model.total)} tokens, ${pyNumber(terms.rewritten)} written again`
    : `keep all: the best plan (stub ${of}) has ${money}`;
  const tier = model.keep.tiered ? (terms.stubbed.tiered ? "both" : "keep") : terms.stubbed.tiered ? "stub" : "none";
  return (
    `${head}; H=${pyInt(clampHorizon(inputs.horizon))} q=${pyFixed(clampProbability(inputs.cache_hit_rate), 2)} ` +
    `ttl=${inputs.cache_ttl ?? "5m"} ${model.placement === "in_place" ? "recall_placement=in_place " : ""}tier=${tier} model=${inputs.model_name}`
  );
}
