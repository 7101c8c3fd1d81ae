/**
 * Plain data shared by the gate's core, its routes and its telemetry.
 */
import type { CACHE_TTLS, OFFLOAD_AT, PRICING_MODES, REASON_CODES, RECALL_PLACEMENTS } from "./constants";
import type { ResolvedFrom } from "./model-names";

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
  /** The 5-minute cache write. */
  cache_write?: number;
  cache_write_1h?: number;
}

/**
 * The prices the cache-aware gate reads from a pricing row: the seed's two,
 * the prompt-cache prices, and an optional long-context tier.
 */
export interface CachePriceRates extends PriceRates, TierPrices {
  long_context?: TierPrices & { threshold_tokens: number };
  /** false: the model has no prompt cache, so cache-aware decisions price it at q = 0. */
  prompt_cache?: boolean;
  /** Who serves the model: its default cache TTLs when the row lists none. */
  provider?: string;
  /** The cache TTLs the model offers, its default first (docs/design/economics.md §5.1). */
  cache_ttls?: readonly CacheTtl[];
  /** The shortest prefix the provider caches; a request below it is priced uncached (docs/design/economics.md §11). */
  min_cache_prefix_tokens?: number;
  /** Characters per token of the model's tokenizer, for `output_chars` in cache-aware mode (default 4). */
  chars_per_token?: number;
}

/** One dated change of a row's prices: the prices that change at `effective_at` (an ISO instant). */
export interface ScheduledChange extends TierPrices {
  effective_at: string;
  /** The tier's prices that change; `threshold_tokens` only where it changes (or the row has no tier yet). */
  long_context?: TierPrices & { threshold_tokens?: number };
}

/** A row that may carry dated price changes, sorted by instant. */
export interface ScheduledPriceRates extends CachePriceRates {
  scheduled?: readonly ScheduledChange[];
}

/** How the gate prices a carried token: "seed" is the reference. */
export type PricingMode = (typeof PRICING_MODES)[number];

/** When the stub goes in: before the output is first read, or into history already cached. */
export type OffloadAt = (typeof OFFLOAD_AT)[number];

/** Where a recall hop puts the original back: at the end of the history, or where the stub stood. */
export type RecallPlacement = (typeof RECALL_PLACEMENTS)[number];

/** How long a cache write lives, and so which write price a cached token pays. */
export type CacheTtl = (typeof CACHE_TTLS)[number];

/** A closed interval [lo, hi] of a prior the caller is unsure of. */
export type Range = readonly [number, number];

/** Ranges of the priors: the decision must pay across the whole box (docs/design/economics.md §6). */
export interface PriorRanges {
  horizon_range?: Range;
  recall_probability_range?: Range;
  /** cache_aware only; ignored by the seed. */
  cache_hit_rate_range?: Range;
}

/** The reference's inputs plus those the cache-aware mode adds, and the prior ranges. */
export interface CacheAwareInputs extends OffloadGateInputs, PriorRanges {
  /** q: how likely a later turn finds the prefix still cached, in [0, 1]. */
  cache_hit_rate: number;
  /** P: tokens of history before this output. */
  context_tokens: number;
  /** Default "entry". */
  offload_at?: OffloadAt;
  /** A: cached tokens of history after the output; read only when `offload_at` is "retroactive". */
  suffix_tokens?: number;
  /** Default "5m". */
  cache_ttl?: CacheTtl;
  /** Default "append": the recall hop reads every token before the recalled slice from the cache. */
  recall_placement?: RecallPlacement;
}

/** The cache-aware decision: the reference's terms plus the long-context premium and the suffix rewrite. */
export interface CacheAwareDecision extends OffloadGateDecision {
  context_premium_saving_usd: number;
  suffix_rewrite_cost_usd: number;
}

/** The corner of the prior box with the lowest net; `cache_hit_rate` is null in seed mode. */
export interface WorstCase {
  net_saving_usd: number;
  horizon: number;
  recall_probability: number;
  cache_hit_rate: number | null;
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
  | { status: "priced"; row: Row; canonical: string; resolved_from?: ResolvedFrom }
  | { status: "unpriced"; detail?: string; ambiguous?: readonly string[] }
  | { status: "unavailable"; detail: string };

/** A decision in either mode, with its reason code, mode and break-evens. */
export interface GateOutcome extends TaggedDecision, BreakEven {
  pricing_mode: PricingMode;
  context_premium_saving_usd: number;
  suffix_rewrite_cost_usd: number;
  /** null when no range was given (or the decision was not priced). */
  worst_case: WorstCase | null;
}
