import { breakEven, NO_BREAK_EVEN } from "./break-even";
import { evaluateCacheAwareGate } from "./cache-aware";
import { decideGate, isBelowThreshold } from "./decision";
import type {
  BreakEven,
  CacheAwareInputs,
  CachePriceRates,
  GateOutcome,
  PricingLookup,
  PricingMode,
  TaggedDecision,
} from "./types";

/**
 * Decides in the given pricing mode from a pricing lookup's tagged result.
 * Below the threshold, unpriced and unavailable are decided exactly as in
 * the seed (`decideGate`), whatever the mode; a priced decision adds its
 * break-evens. The seed mode's six reference fields are evaluateOffloadGate's,
 * untouched.
 *
 * @example
 * decideOutcome("cache_aware", { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4,
 *   recall_probability: 0.3, cache_hit_rate: 0.9, context_tokens: 60_000 }, { status: "priced", row, canonical })
 * // { fire: true, net_saving_usd: ≈0.160755, reason_code: "net_positive", pricing_mode: "cache_aware", ... }
 */
export function decideOutcome(
  mode: PricingMode,
  inputs: CacheAwareInputs,
  lookup: PricingLookup<CachePriceRates>,
): GateOutcome {
  if (isBelowThreshold(inputs) || lookup.status !== "priced") {
    return outcome(decideGate(inputs, lookup), mode, 0, NO_BREAK_EVEN);
  }
  if (mode === "seed") {
    const decision = decideGate(inputs, lookup);
    return outcome(decision, mode, 0, breakEven(mode, inputs, lookup.row));
  }
  const decision = evaluateCacheAwareGate(inputs, lookup.row);
  return outcome(
    { ...decision, reason_code: decision.fire ? "net_positive" : "net_not_positive" },
    mode,
    decision.context_premium_saving_usd,
    breakEven(mode, inputs, lookup.row),
  );
}

// One key order for every outcome: the reference's fields first, then ours.
function outcome(decision: TaggedDecision, mode: PricingMode, premium: number, breakEvens: BreakEven): GateOutcome {
  return {
    fire: decision.fire,
    net_saving_usd: decision.net_saving_usd,
    reprefill_saving_usd: decision.reprefill_saving_usd,
    stub_carry_cost_usd: decision.stub_carry_cost_usd,
    expected_recall_hop_cost_usd: decision.expected_recall_hop_cost_usd,
    reason: decision.reason,
    reason_code: decision.reason_code,
    pricing_mode: mode,
    context_premium_saving_usd: premium,
    break_even_horizon: breakEvens.break_even_horizon,
    break_even_output_tokens: breakEvens.break_even_output_tokens,
  };
}
