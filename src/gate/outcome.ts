import { breakEven, NO_BREAK_EVEN } from "./break-even";
import { cacheAwareParams, evaluateCacheAwareGate, requestRates } from "./cache-aware";
import { decideGate, isBelowThreshold, preFilterTokens } from "./decision";
import { cacheInputsFor, gapReason, missingCachePrice } from "./gaps";
import { priorBox, worstCase, worstCaseClause } from "./robust";
import type {
  BreakEven,
  CacheAwareInputs,
  CachePriceRates,
  GateOutcome,
  PricingLookup,
  PricingMode,
  TaggedDecision,
  WorstCase,
} from "./types";

/** The terms only the cache-aware mode prices, and the robust check's verdict. */
interface Extras {
  premium: number;
  suffix: number;
  worst: WorstCase | null;
}

const NO_EXTRAS: Extras = { premium: 0, suffix: 0, worst: null };

/**
 * Decides in the given pricing mode from a pricing lookup's tagged result.
 * Below the threshold, unpriced and unavailable are decided exactly as in
 * the seed (`decideGate`), whatever the mode; a priced decision adds its
 * break-evens (at the point) and, when ranges were given, the worst corner
 * of the box of priors, which must be positive too for the gate to fire.
 * A cache-aware decision that would have to guess a cache-read price (q > 0
 * on a row without one at the tier in force) does not fire and says which
 * field is missing (`pricing_incomplete`), its terms still reported; a row
 * with `prompt_cache: false` is priced at q = 0. Without ranges the seed
 * mode's six reference fields are evaluateOffloadGate's, untouched.
 *
 * @example
 * decideOutcome("cache_aware", { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4,
 *   recall_probability: 0.3, cache_hit_rate: 0.9, context_tokens: 60_000 }, { status: "priced", row, canonical })
 * // { fire: true, net_saving_usd: ≈0.160755, reason_code: "net_positive", pricing_mode: "cache_aware", ... }
 */
export function decideOutcome(
  mode: PricingMode,
  given: CacheAwareInputs,
  lookup: PricingLookup<CachePriceRates>,
): GateOutcome {
  // The mode's floor, filled in once, so that every path below reads the same one.
  const requested = { ...given, large_offload_threshold_tokens: preFilterTokens(given, mode) };
  if (isBelowThreshold(requested) || lookup.status !== "priced") {
    return outcome(decideGate(requested, lookup), mode, NO_EXTRAS, NO_BREAK_EVEN);
  }
  const row = lookup.row;
  const inputs = mode === "seed" ? requested : cacheInputsFor(requested, row);
  const breakEvens = breakEven(mode, inputs, row);
  const point: TaggedDecision & { context_premium_saving_usd?: number; suffix_rewrite_cost_usd?: number } =
    mode === "seed" ? decideGate(inputs, lookup) : tagged(evaluateCacheAwareGate(inputs, row));
  const params = cacheAwareParams(inputs);
  const box = priorBox(mode, inputs, params);
  const extras: Extras = {
    premium: point.context_premium_saving_usd ?? 0,
    suffix: point.suffix_rewrite_cost_usd ?? 0,
    worst: box === null ? null : worstCase(mode, row, params, box),
  };
  const qMax = mode === "seed" ? 0 : Math.max(params.cacheHitRate, ...(box?.cacheHitRates ?? []));
  const missing = missingCachePrice(mode === "seed" ? [] : Object.values(requestRates(row, params)), qMax);
  if (missing !== null) {
    const reason =
      gapReason(missing, qMax, inputs.model_name) +
      point.reason +
      (extras.worst === null ? "" : worstCaseClause(extras.worst));
    return outcome({ ...point, fire: false, reason, reason_code: "pricing_incomplete" }, mode, extras, breakEvens);
  }
  if (extras.worst === null) return outcome(point, mode, extras, breakEvens);
  const robust: TaggedDecision = { ...point, reason: point.reason + worstCaseClause(extras.worst) };
  if (point.fire && !(extras.worst.net_saving_usd > 0)) {
    robust.fire = false;
    robust.reason_code = "worst_case_not_positive";
  }
  return outcome(robust, mode, extras, breakEvens);
}

function tagged<D extends { fire: boolean }>(decision: D): D & Pick<TaggedDecision, "reason_code"> {
  return { ...decision, reason_code: decision.fire ? "net_positive" : "net_not_positive" };
}

// One key order for every outcome: the reference's fields first, then ours.
function outcome(decision: TaggedDecision, mode: PricingMode, extras: Extras, breakEvens: BreakEven): GateOutcome {
  return {
    fire: decision.fire,
    net_saving_usd: decision.net_saving_usd,
    reprefill_saving_usd: decision.reprefill_saving_usd,
    stub_carry_cost_usd: decision.stub_carry_cost_usd,
    expected_recall_hop_cost_usd: decision.expected_recall_hop_cost_usd,
    reason: decision.reason,
    reason_code: decision.reason_code,
    pricing_mode: mode,
    context_premium_saving_usd: extras.premium,
    suffix_rewrite_cost_usd: extras.suffix,
    break_even_horizon: breakEvens.break_even_horizon,
    break_even_output_tokens: breakEvens.break_even_output_tokens,
    worst_case: extras.worst,
  };
}
