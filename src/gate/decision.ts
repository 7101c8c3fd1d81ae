import {
  DEFAULT_CACHE_AWARE_FLOOR_TOKENS,
  DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
  DEFAULT_RECALL_INPUT_TOKENS,
  DEFAULT_RECALL_OUTPUT_TOKENS,
  DEFAULT_STUB_TOKENS,
  TOKENS_PER_MILLION,
} from "./constants";
import { pyFixed, pyInt, pyNumber, pyRepr } from "./pyformat";
import type {
  OffloadGateDecision,
  OffloadGateInputs,
  PriceRates,
  PricingLookup,
  PricingMode,
  TaggedDecision,
} from "./types";

const ZERO_TERMS = {
  fire: false,
  net_saving_usd: 0,
  reprefill_saving_usd: 0,
  stub_carry_cost_usd: 0,
  expected_recall_hop_cost_usd: 0,
} as const;

/**
 * The reference gate, ported operation for operation: the same checks in the
 * same order, the same clamping, the same floating-point operations in the
 * same order, and the same reason text byte for byte. Pure: no I/O, no clock.
 *
 * @example
 * evaluateOffloadGate(
 *   { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 },
 *   { input: 5, output: 25 },
 * ).fire // true: net=$0.3893
 */
export function evaluateOffloadGate(inputs: OffloadGateInputs, pricing: PriceRates | undefined): OffloadGateDecision {
  const threshold = inputs.large_offload_threshold_tokens ?? DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS;
  // The pre-filter is a hard gate independent of the math, and it runs
  // before the pricing lookup.
  if (inputs.output_tokens < threshold) {
    return {
      ...ZERO_TERMS,
      reason: `below large_offload_threshold (${pyFixed(inputs.output_tokens, 0)} < ${pyNumber(threshold)} tokens)`,
    };
  }
  if (pricing === undefined) {
    return { ...ZERO_TERMS, reason: `no MODEL_PRICING row for ${pyRepr(inputs.model_name)}` };
  }

  const params = seedParams(inputs);
  const {
    reprefill: reprefillSaving,
    stub: stubCarryCost,
    recall: expectedRecallHopCost,
    net,
  } = seedTerms(pricing, params);
  const { horizon: h, recallProbability: pRecall } = params;
  return {
    fire: net > 0,
    net_saving_usd: net,
    reprefill_saving_usd: reprefillSaving,
    stub_carry_cost_usd: stubCarryCost,
    expected_recall_hop_cost_usd: expectedRecallHopCost,
    reason:
      `net=$${pyFixed(net, 4)} (saving=$${pyFixed(reprefillSaving, 4)} ` +
      `− stub=$${pyFixed(stubCarryCost, 4)} − recall=$${pyFixed(expectedRecallHopCost, 4)}); ` +
      `H=${pyInt(h)} p_recall=${pyFixed(pRecall, 2)} model=${inputs.model_name}`,
  };
}

/** The inputs the seed's terms depend on, every default filled in and clamped. */
export interface SeedParams {
  outputTokens: number;
  horizon: number;
  recallProbability: number;
  stubTokens: number;
  recallInputTokens: number;
  recallOutputTokens: number;
}

/** The seed's terms, as plain numbers. */
export interface SeedTerms {
  reprefill: number;
  stub: number;
  recall: number;
  net: number;
}

/**
 * Resolves the reference's optional fields and clamps h and p as it does.
 *
 * @example
 * seedParams({ model_name: "m", output_tokens: 20_000, horizon: 4.7, recall_probability: 2 })
 * // { outputTokens: 20000, horizon: 4, recallProbability: 1, stubTokens: 200, recallInputTokens: 2000, recallOutputTokens: 500 }
 */
export function seedParams(inputs: OffloadGateInputs): SeedParams {
  return {
    outputTokens: inputs.output_tokens,
    horizon: clampHorizon(inputs.horizon),
    recallProbability: clampProbability(inputs.recall_probability),
    stubTokens: inputs.stub_tokens ?? DEFAULT_STUB_TOKENS,
    recallInputTokens: inputs.recall_input_tokens ?? DEFAULT_RECALL_INPUT_TOKENS,
    recallOutputTokens: inputs.recall_output_tokens ?? DEFAULT_RECALL_OUTPUT_TOKENS,
  };
}

/**
 * The reference's terms with its floating-point operations in its order:
 * every carried token at the input rate on every turn. The decision, its
 * break-evens and its worst case all price through here.
 *
 * @example
 * seedTerms({ input: 5, output: 25 }, seedParams({ model_name: "m", output_tokens: 20_000, horizon: 4,
 *   recall_probability: 0.3 })).net // 0.38925000000000004
 */
export function seedTerms(pricing: PriceRates, params: SeedParams): SeedTerms {
  const inputRate = (pricing.input ?? 0) / TOKENS_PER_MILLION;
  const outputRate = (pricing.output ?? 0) / TOKENS_PER_MILLION;
  const h = params.horizon;
  const reprefill = params.outputTokens * inputRate * h;
  const stub = params.stubTokens * inputRate * h;
  const recall =
    params.recallProbability * (params.recallInputTokens * inputRate + params.recallOutputTokens * outputRate);
  return { reprefill, stub, recall, net: reprefill - (stub + recall) };
}

/**
 * Python's `max(0, int(horizon))`: truncates toward zero, then floors at 0.
 * NaN becomes 0 where Python would raise.
 */
export function clampHorizon(horizon: number): number {
  const truncated = Math.trunc(horizon);
  return truncated > 0 ? truncated : 0;
}

/**
 * Python's `max(0.0, min(1.0, p))`, comparison for comparison: NaN becomes
 * 1.0 (min keeps its first argument when nothing compares lower) and -0.0
 * becomes 0.0.
 */
export function clampProbability(p: number): number {
  const capped = p < 1 ? p : 1;
  return capped > 0 ? capped : 0;
}

/**
 * The size pre-filter in force: the request's, else the mode's default. The
 * seed's is the reference's 10,000 tokens; cache_aware has no floor of its
 * own (the break-even size decides), so there the field is a floor ops or
 * callers may set.
 *
 * @example
 * preFilterTokens({}) // 10000
 * preFilterTokens({}, "cache_aware") // 0
 * preFilterTokens({ large_offload_threshold_tokens: 2_000 }, "cache_aware") // 2000
 */
export function preFilterTokens(
  inputs: Pick<OffloadGateInputs, "large_offload_threshold_tokens">,
  mode: PricingMode = "seed",
): number {
  return (
    inputs.large_offload_threshold_tokens ??
    (mode === "seed" ? DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS : DEFAULT_CACHE_AWARE_FLOOR_TOKENS)
  );
}

/**
 * Whether the pre-filter alone decides: then no pricing lookup is needed.
 *
 * @example
 * isBelowThreshold({ model_name: "m", output_tokens: 600, horizon: 4, recall_probability: 0.25 }) // true
 * isBelowThreshold({ model_name: "m", output_tokens: 600, horizon: 4, recall_probability: 0.25 }, "cache_aware") // false
 */
export function isBelowThreshold(inputs: OffloadGateInputs, mode: PricingMode = "seed"): boolean {
  return inputs.output_tokens < preFilterTokens(inputs, mode);
}

/**
 * Decides from a pricing lookup's tagged result and names the reason. An
 * unavailable lookup never fires: the gate cannot prove a saving it cannot
 * price.
 *
 * @example
 * decideGate(inputs, { status: "unavailable", detail: "KV read timed out after 100 ms" }).reason_code
 * // "pricing_unavailable" (or "below_threshold" for a small output)
 */
export function decideGate(inputs: OffloadGateInputs, lookup: PricingLookup): TaggedDecision {
  if (isBelowThreshold(inputs)) {
    return { ...evaluateOffloadGate(inputs, undefined), reason_code: "below_threshold" };
  }
  switch (lookup.status) {
    case "priced": {
      const decision = evaluateOffloadGate(inputs, lookup.row);
      return { ...decision, reason_code: decision.fire ? "net_positive" : "net_not_positive" };
    }
    case "unpriced":
      if (lookup.detail !== undefined)
        return {
          ...ZERO_TERMS,
          reason: `no usable pricing for ${pyRepr(inputs.model_name)}: ${lookup.detail}`,
          reason_code: "unpriced",
        };
      return { ...evaluateOffloadGate(inputs, undefined), reason_code: "unpriced" };
    case "unavailable":
      return {
        ...ZERO_TERMS,
        reason: `pricing unavailable for ${pyRepr(inputs.model_name)}: ${lookup.detail}`,
        reason_code: "pricing_unavailable",
      };
    default:
      return assertNever(lookup);
  }
}

function assertNever(value: never): never {
  throw new Error(`unhandled pricing lookup: ${JSON.stringify(value)}`);
}
