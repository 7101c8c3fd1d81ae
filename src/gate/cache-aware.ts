import { clampProbability, evaluateOffloadGate, preFilterTokens, type SeedParams, seedParams } from "./decision";
import { cacheInputsFor } from "./gaps";
import { pyFixed, pyInt, pyNumber } from "./pyformat";
import { carryCost, laterTurnRate, ratesAt, type TokenRates } from "./rates";
import type {
  CacheAwareDecision,
  CacheAwareInputs,
  CachePriceRates,
  CacheTtl,
  OffloadAt,
  RecallPlacement,
} from "./types";

/**
 * The cache-aware gate of docs/economics.md: a carried token is written to
 * the prompt cache once and read (or, on a miss, written again) on every
 * later turn; a long-context tier prices a whole request once its input
 * passes the tier's threshold. A retroactive offload stubs an output that is
 * already cached, so everything cached after it is written again. Pure: no
 * I/O, no clock.
 */

/** Every term of a cache-aware decision, and the rates that priced it. */
export interface CacheAwareTerms {
  reprefill: number;
  premium: number;
  /** What rewriting the cached suffix costs (0 on entry). */
  suffix: number;
  stub: number;
  recall: number;
  net: number;
  /** Rates of the request that keeps the output (K) and of the one that carries the stub (T). */
  keep: TokenRates;
  stubbed: TokenRates;
}

/** The inputs the terms depend on, every default filled in and clamped. */
export interface CacheAwareParams extends SeedParams {
  cacheHitRate: number;
  contextTokens: number;
  offloadAt: OffloadAt;
  /** A: 0 on entry, whatever the request said. */
  suffixTokens: number;
  cacheTtl: CacheTtl;
  /** Where the recall hop puts the original back; omitted: "append" (docs/design/economics.md §4.2). */
  recallPlacement?: RecallPlacement;
}

/**
 * What one token of history after the stub costs the recall hop. Appended at
 * the end, the original leaves the whole history before it a prefix the last
 * call cached: read, m(T). Restored in place, the prefix changes at the stub,
 * so everything after it is written: T.write (docs/design/economics.md §4.1–§4.2).
 *
 * @example
 * hopSuffixRate(opusRates, 1.075e-6, "append") // 1.075e-6
 * hopSuffixRate(opusRates, 1.075e-6, "in_place") // 6.25e-6
 */
export function hopSuffixRate(stubbed: TokenRates, mStub: number, placement: RecallPlacement | undefined): number {
  return placement === "in_place" ? stubbed.write : mStub;
}

/** K and T: the rates of the request that keeps the output and of the one that carries the stub. */
export interface RequestRates {
  keep: TokenRates;
  stubbed: TokenRates;
}

/**
 * K = tier(P + O + A) and T = tier(P + S + A), at the request's TTL. Neither
 * depends on h, p or q, so a box of priors shares one pair.
 *
 * @example
 * requestRates(opusRow, params).keep.write // 6.25e-6 at "5m", 10e-6 at "1h"
 */
export function requestRates(row: CachePriceRates, params: CacheAwareParams): RequestRates {
  const { contextTokens: ctx, suffixTokens: a, cacheTtl: ttl } = params;
  return {
    keep: ratesAt(row, ctx + params.outputTokens + a, ttl),
    stubbed: ratesAt(row, ctx + params.stubTokens + a, ttl),
  };
}

/**
 * The design notes' terms, one floating-point operation order for the
 * decision, its reason, its worst case and its break-evens.
 *
 * @example
 * cacheAwareTerms(opusRow, { outputTokens: 20_000, horizon: 4, recallProbability: 0.3, cacheHitRate: 0.9,
 *   contextTokens: 60_000, stubTokens: 200, recallInputTokens: 2_000, recallOutputTokens: 500,
 *   offloadAt: "entry", suffixTokens: 0, cacheTtl: "5m" }).net // ≈ 0.160755
 */
export function cacheAwareTerms(row: CachePriceRates, params: CacheAwareParams): CacheAwareTerms {
  return termsAt(requestRates(row, params), params);
}

/**
 * The terms with K and T already chosen.
 *
 * @example
 * termsAt(requestRates(opusRow, params), { ...params, cacheHitRate: 0.8 }).net
 */
export function termsAt(rates: RequestRates, params: CacheAwareParams): CacheAwareTerms {
  const {
    outputTokens: o,
    horizon: h,
    recallProbability: p,
    cacheHitRate: q,
    contextTokens: ctx,
    suffixTokens: a,
  } = params;
  const { keep, stubbed } = rates;
  const mKeep = laterTurnRate(keep, q);
  const mStub = laterTurnRate(stubbed, q);

  // A retroactive output's first write is already paid: every turn is a later turn.
  const reprefill = params.offloadAt === "retroactive" ? o * mKeep * h : carryCost(o, keep, mKeep, h);
  // mKeep − mStub is exactly 0 when both requests price alike.
  const premium = ctx * h * (mKeep - mStub);
  // The suffix is written again once, then read; kept, it would only have been read.
  const suffix = a === 0 ? 0 : carryCost(a, stubbed, mStub, h) - a * mKeep * h;
  const stub = carryCost(params.stubTokens, stubbed, mStub, h);
  // The hop is one more call over the whole history: the recalled slice is written, the history
  // before the stub read, and the suffix read (appended) or written (in place). On entry A is 0
  // and both placements are the entry hop, bit for bit.
  const recall =
    p *
    (params.recallInputTokens * stubbed.write +
      params.recallOutputTokens * stubbed.out +
      ctx * mStub +
      a * hopSuffixRate(stubbed, mStub, params.recallPlacement));
  // On entry suffix is 0 and this is today's sum, bit for bit.
  const net = reprefill + premium - (stub + recall + suffix);
  return { reprefill, premium, suffix, stub, recall, net, keep, stubbed };
}

/**
 * Resolves the optional fields and clamps as the reference does
 * (h = max(0, trunc(horizon)), p and q into [0, 1], P and A ≥ 0). A is
 * read only for a retroactive offload.
 *
 * @example
 * cacheAwareParams({ model_name: "m", output_tokens: 20_000, horizon: 4.7, recall_probability: 2,
 *   cache_hit_rate: 0.9, context_tokens: 0, suffix_tokens: 5_000 })
 * // { horizon: 4, recallProbability: 1, stubTokens: 200, offloadAt: "entry", suffixTokens: 0, cacheTtl: "5m", recallPlacement: "append", ... }
 */
export function cacheAwareParams(inputs: CacheAwareInputs): CacheAwareParams {
  const offloadAt = inputs.offload_at ?? "entry";
  const suffix = inputs.suffix_tokens ?? 0;
  return {
    ...seedParams(inputs),
    // As p: NaN clamps to 1 (the API refuses NaN; this keeps the core total).
    cacheHitRate: clampProbability(inputs.cache_hit_rate),
    contextTokens: inputs.context_tokens > 0 ? inputs.context_tokens : 0,
    offloadAt,
    suffixTokens: offloadAt === "retroactive" && suffix > 0 ? suffix : 0,
    cacheTtl: inputs.cache_ttl ?? "5m",
    recallPlacement: inputs.recall_placement ?? "append",
  };
}

/**
 * The cache-aware gate. The pre-filter and the unpriced-model rule come
 * first, with the reference's words; then the design notes' terms decide,
 * and the reason names every term, q, the context, the tier and the mode
 * (and, when they are not the defaults, the placement and the TTL).
 *
 * @example
 * evaluateCacheAwareGate(
 *   { model_name: "claude-opus-4-6", output_tokens: 12_000, horizon: 2, recall_probability: 0.5,
 *     cache_hit_rate: 0.9, context_tokens: 150_000 },
 *   { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
 * ).fire // false: the seed gate fires here, but the cache makes the saving smaller than the recall hop
 */
export function evaluateCacheAwareGate(
  requested: CacheAwareInputs,
  pricing: CachePriceRates | undefined,
): CacheAwareDecision {
  const given = pricing === undefined ? requested : cacheInputsFor(requested, pricing);
  // No floor unless one is set: the terms below are the pre-filter (the request's break-even size).
  const inputs = { ...given, large_offload_threshold_tokens: preFilterTokens(given, "cache_aware") };
  if (inputs.output_tokens < inputs.large_offload_threshold_tokens || pricing === undefined) {
    return { ...evaluateOffloadGate(inputs, undefined), context_premium_saving_usd: 0, suffix_rewrite_cost_usd: 0 };
  }
  const params = cacheAwareParams(inputs);
  const terms = cacheAwareTerms(pricing, params);
  return {
    fire: terms.net > 0,
    net_saving_usd: terms.net,
    reprefill_saving_usd: terms.reprefill,
    stub_carry_cost_usd: terms.stub,
    expected_recall_hop_cost_usd: terms.recall,
    context_premium_saving_usd: terms.premium,
    suffix_rewrite_cost_usd: terms.suffix,
    reason: cacheAwareReason(terms, params, inputs.model_name, pricing.prompt_cache === false),
  };
}

/**
 * The reason in the reference's style. On entry with the 5-minute TTL it is
 * word for word the reason with no placement or TTL named.
 */
function cacheAwareReason(terms: CacheAwareTerms, params: CacheAwareParams, model: string, noCache: boolean): string {
  const retro = params.offloadAt === "retroactive";
  const suffixTerm = retro ? ` − suffix=$${pyFixed(terms.suffix, 4)}` : "";
  // The recall placement changes a figure only when something follows the stub; "append" is the default.
  const recalled = retro && params.recallPlacement === "in_place" ? "recall_placement=in_place " : "";
  const placement = retro ? `offload_at=retroactive suffix=${pyNumber(params.suffixTokens)} ${recalled}` : "";
  // Named only where the cache lives long: the short ones ("5m", in memory, implicit) are not named.
  const ttl = params.cacheTtl === "1h" || params.cacheTtl === "24h" ? `ttl=${params.cacheTtl} ` : "";
  // Said only where it applies, so every other reason reads as it did.
  const cache = noCache ? "prompt_cache=false " : "";
  return (
    `net=$${pyFixed(terms.net, 4)} (saving=$${pyFixed(terms.reprefill, 4)} ` +
    `+ premium=$${pyFixed(terms.premium, 4)} − stub=$${pyFixed(terms.stub, 4)} ` +
    `− recall=$${pyFixed(terms.recall, 4)}${suffixTerm}); H=${pyInt(params.horizon)} ` +
    `p_recall=${pyFixed(params.recallProbability, 2)} q=${pyFixed(params.cacheHitRate, 2)} ` +
    `context=${pyNumber(params.contextTokens)} ${placement}tier=${tierLabel(terms)} ${ttl}${cache}mode=cache_aware model=${model}`
  );
}

/** Which of the two requests the long-context tier priced: none, keep, stub or both. */
function tierLabel(terms: CacheAwareTerms): string {
  if (terms.keep.tiered) return terms.stubbed.tiered ? "both" : "keep";
  return terms.stubbed.tiered ? "stub" : "none";
}
