/**
 * Plain data shared by the gate's core, its routes and its telemetry.
 */
import type { PRICING_MODES, REASON_CODES } from "./constants";

/** The reference's `OffloadGateInputs`, under the reference's field names. */
export interface OffloadGateInputs {
  output_tokens: number;
  horizon: number;
  recall_probability: number;
  model_name: string;
  large_offload_threshold_tokens?: number;
  stub_tokens?: number;
  recall_input_tokens?: number;
  recall_output_tokens?: number;
}

/** The reference's `OffloadGateDecision`. */
export interface OffloadGateDecision {
  fire: boolean;
  net_saving_usd: number;
  reprefill_saving_usd: number;
  stub_carry_cost_usd: number;
  expected_recall_hop_cost_usd: number;
  reason: string;
}

/** Why the gate decided as it did, in a form machines can group by. */
export type ReasonCode = (typeof REASON_CODES)[number];

/** The prices the core reads from a pricing row, in USD per million tokens. */
export interface PriceRates {
  input?: number;
  output?: number;
}

/** One price tier's rates in USD per million tokens; any may be left out. */
export interface TierPrices {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
}

/**
 * The prices the cache-aware gate reads from a pricing row: the seed's two,
 * the prompt-cache prices, and an optional long-context tier.
 */
export interface CachePriceRates extends PriceRates, TierPrices {
  long_context?: TierPrices & { threshold_tokens: number };
}

/** How the gate prices a carried token: "seed" is the reference. */
export type PricingMode = (typeof PRICING_MODES)[number];

/** The reference's inputs plus the two the cache-aware mode adds. */
export interface CacheAwareInputs extends OffloadGateInputs {
  /** q: how likely a later turn finds the prefix still cached, in [0, 1]. */
  cache_hit_rate: number;
  /** P: tokens of history before this output. */
  context_tokens: number;
}

/** The cache-aware decision: the reference's terms plus the long-context premium. */
export interface CacheAwareDecision extends OffloadGateDecision {
  context_premium_saving_usd: number;
}

/** The smallest horizon and output size at which the gate would fire; null where none. */
export interface BreakEven {
  break_even_horizon: number | null;
  break_even_output_tokens: number | null;
}

/** A decision with its machine-readable reason. */
export interface TaggedDecision extends OffloadGateDecision {
  reason_code: ReasonCode;
}

/**
 * What the pricing lookup found for a model: a tagged result, so that every
 * caller handles each case (see `decideGate`). An unpriced lookup may say
 * why (a retired model without a usable replacement); without `detail` it
 * answers in the reference's words.
 */
export type PricingLookup<Row extends PriceRates = PriceRates> =
  | { status: "priced"; row: Row; canonical: string }
  | { status: "unpriced"; detail?: string }
  | { status: "unavailable"; detail: string };

/** A decision in either mode, with its reason code, mode and break-evens. */
export interface GateOutcome extends TaggedDecision, BreakEven {
  pricing_mode: PricingMode;
  context_premium_saving_usd: number;
}
