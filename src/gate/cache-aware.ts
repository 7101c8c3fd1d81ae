import {
  DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
  DEFAULT_RECALL_INPUT_TOKENS,
  DEFAULT_RECALL_OUTPUT_TOKENS,
  DEFAULT_STUB_TOKENS,
  TOKENS_PER_MILLION,
} from "./constants";
import { clampHorizon, clampProbability, evaluateOffloadGate } from "./decision";
import { pyFixed, pyInt, pyNumber } from "./pyformat";
import type { CacheAwareDecision, CacheAwareInputs, CachePriceRates } from "./types";

/**
 * The cache-aware gate of docs/economics.md: a carried token is written to
 * the prompt cache once and read (or, on a miss, written again) on every
 * later turn; a long-context tier prices a whole request once its input
 * passes the tier's threshold. Pure: no I/O, no clock.
 */

/** Per-token rates (USD) of one request, after tier selection and fallbacks. */
export interface TokenRates {
  in: number;
  out: number;
  read: number;
  write: number;
  /** Whether the long-context tier priced this request. */
  tiered: boolean;
}

/**
 * The rates of a request whose input is `inputTokens`: the row's
 * long-context tier when the input exceeds its threshold (every token of the
 * request, as Anthropic bills), the base prices otherwise. A price the tier
 * leaves out falls back to the base price; a missing cache price falls back
 * to the input price, never 0.
 *
 * @example
 * ratesAt({ input: 3, output: 15, long_context: { threshold_tokens: 200_000, input: 6 } }, 210_000)
 * // { in: 6e-6, out: 15e-6, read: 6e-6, write: 6e-6, tiered: true }
 */
export function ratesAt(row: CachePriceRates, inputTokens: number): TokenRates {
  const tier = row.long_context;
  if (tier === undefined || !(inputTokens > tier.threshold_tokens)) return baseRates(row);
  // Divide exactly as the reference does, so an untiered row reduces to it bit for bit.
  const input = tier.input ?? row.input ?? 0;
  return {
    in: input / TOKENS_PER_MILLION,
    out: (tier.output ?? row.output ?? 0) / TOKENS_PER_MILLION,
    read: (tier.cache_read ?? row.cache_read ?? input) / TOKENS_PER_MILLION,
    write: (tier.cache_write ?? row.cache_write ?? input) / TOKENS_PER_MILLION,
    tiered: true,
  };
}

function baseRates(row: CachePriceRates): TokenRates {
  const input = row.input ?? 0;
  return {
    in: input / TOKENS_PER_MILLION,
    out: (row.output ?? 0) / TOKENS_PER_MILLION,
    read: (row.cache_read ?? input) / TOKENS_PER_MILLION,
    write: (row.cache_write ?? input) / TOKENS_PER_MILLION,
    tiered: false,
  };
}

/**
 * m(R): the expected cost of one later turn of an already-written token. A
 * hit reads it, a miss writes it again: q·read + (1 − q)·write, computed as
 * write + q·(read − write) so that it is exactly `write` when read = write.
 *
 * @example
 * laterTurnRate({ in: 5e-6, out: 25e-6, read: 0.5e-6, write: 6.25e-6, tiered: false }, 0.9) // ≈ 1.075e-6
 */
export function laterTurnRate(rates: TokenRates, q: number): number {
  return rates.write + q * (rates.read - rates.write);
}

/**
 * tokens · carry(R, h): written on the first turn, then m(R) on each of the
 * other h − 1. When a later turn costs what the first does (read = write, or
 * q = 0), that is tokens · write · h, done in the reference's order so the
 * cache-aware gate reduces to the seed bit for bit.
 *
 * @example
 * carryCost(20_000, opusRates, laterTurnRate(opusRates, 0.9), 4) // ≈ 0.1895 (20,000 · 9.475e-6)
 */
export function carryCost(tokens: number, rates: TokenRates, m: number, h: number): number {
  if (h === 0) return 0;
  if (m === rates.write) return tokens * rates.write * h;
  return tokens * (rates.write + (h - 1) * m);
}

/** Every term of a cache-aware decision, and the rates that priced it. */
export interface CacheAwareTerms {
  reprefill: number;
  premium: number;
  stub: number;
  recall: number;
  net: number;
  /** Rates of the request that keeps the output (K) and of the one that carries the stub (T). */
  keep: TokenRates;
  stubbed: TokenRates;
}

/** The inputs the terms depend on, every default filled in and clamped. */
export interface CacheAwareParams {
  outputTokens: number;
  horizon: number;
  recallProbability: number;
  cacheHitRate: number;
  contextTokens: number;
  stubTokens: number;
  recallInputTokens: number;
  recallOutputTokens: number;
}

/**
 * The design note's terms, one floating-point operation order for the
 * decision, its reason and its break-evens.
 *
 * @example
 * cacheAwareTerms(opusRow, { outputTokens: 20_000, horizon: 4, recallProbability: 0.3, cacheHitRate: 0.9,
 *   contextTokens: 60_000, stubTokens: 200, recallInputTokens: 2_000, recallOutputTokens: 500 }).net // ≈ 0.160755
 */
export function cacheAwareTerms(row: CachePriceRates, params: CacheAwareParams): CacheAwareTerms {
  const { outputTokens: o, horizon: h, recallProbability: p, cacheHitRate: q, contextTokens: ctx } = params;
  const keep = ratesAt(row, ctx + o);
  const stubbed = ratesAt(row, ctx + params.stubTokens);
  const mKeep = laterTurnRate(keep, q);
  const mStub = laterTurnRate(stubbed, q);

  const reprefill = carryCost(o, keep, mKeep, h);
  // mKeep − mStub is exactly 0 when both requests price alike.
  const premium = ctx * h * (mKeep - mStub);
  const stub = carryCost(params.stubTokens, stubbed, mStub, h);
  const recall =
    p * (params.recallInputTokens * stubbed.write + params.recallOutputTokens * stubbed.out + ctx * mStub);
  const net = reprefill + premium - (stub + recall);
  return { reprefill, premium, stub, recall, net, keep, stubbed };
}

/**
 * Resolves the optional reference fields and clamps as the reference does
 * (h = max(0, trunc(horizon)), p and q into [0, 1], P ≥ 0).
 *
 * @example
 * cacheAwareParams({ model_name: "m", output_tokens: 20_000, horizon: 4.7, recall_probability: 2,
 *   cache_hit_rate: 0.9, context_tokens: 0 }) // { horizon: 4, recallProbability: 1, stubTokens: 200, ... }
 */
export function cacheAwareParams(inputs: CacheAwareInputs): CacheAwareParams {
  return {
    outputTokens: inputs.output_tokens,
    horizon: clampHorizon(inputs.horizon),
    recallProbability: clampProbability(inputs.recall_probability),
    // NaN clamps to 1, the conservative side: a warm cache shrinks the saving.
    cacheHitRate: clampProbability(inputs.cache_hit_rate),
    contextTokens: inputs.context_tokens > 0 ? inputs.context_tokens : 0,
    stubTokens: inputs.stub_tokens ?? DEFAULT_STUB_TOKENS,
    recallInputTokens: inputs.recall_input_tokens ?? DEFAULT_RECALL_INPUT_TOKENS,
    recallOutputTokens: inputs.recall_output_tokens ?? DEFAULT_RECALL_OUTPUT_TOKENS,
  };
}

/**
 * The cache-aware gate. The pre-filter and the unpriced-model rule come
 * first, with the reference's words; then the design note's terms decide,
 * and the reason names every term, q, the context, the tier and the mode.
 *
 * @example
 * evaluateCacheAwareGate(
 *   { model_name: "claude-opus-4-6", output_tokens: 12_000, horizon: 2, recall_probability: 0.5,
 *     cache_hit_rate: 0.9, context_tokens: 150_000 },
 *   { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 },
 * ).fire // false: the seed gate fires here, but the cache makes the saving smaller than the recall hop
 */
export function evaluateCacheAwareGate(
  inputs: CacheAwareInputs,
  pricing: CachePriceRates | undefined,
): CacheAwareDecision {
  const threshold = inputs.large_offload_threshold_tokens ?? DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS;
  if (inputs.output_tokens < threshold || pricing === undefined) {
    return { ...evaluateOffloadGate(inputs, undefined), context_premium_saving_usd: 0 };
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
    reason:
      `net=$${pyFixed(terms.net, 4)} (saving=$${pyFixed(terms.reprefill, 4)} ` +
      `+ premium=$${pyFixed(terms.premium, 4)} − stub=$${pyFixed(terms.stub, 4)} ` +
      `− recall=$${pyFixed(terms.recall, 4)}); H=${pyInt(params.horizon)} ` +
      `p_recall=${pyFixed(params.recallProbability, 2)} q=${pyFixed(params.cacheHitRate, 2)} ` +
      `context=${pyNumber(params.contextTokens)} tier=${tierLabel(terms)} mode=cache_aware model=${inputs.model_name}`,
  };
}

/** Which of the two requests the long-context tier priced: none, keep, stub or both. */
function tierLabel(terms: CacheAwareTerms): string {
  if (terms.keep.tiered) return terms.stubbed.tiered ? "both" : "keep";
  return terms.stubbed.tiered ? "stub" : "none";
}
