/**
 * @module test/gate/break-even-support
 *
 * What the break-even tests share: the decision as a predicate (and a faster
 * one, checked equal), brute-force searches for the first horizon and size
 * that fire, and fast-check arbitraries for rows and requests, seed and
 * cache-aware, retroactive and 1-hour.
 *
 * @example
 * fc.assert(fc.property(mode, pricedRequest, row, (m, inputs, r) => bruteHorizon(m, inputs, r) !== undefined), runs(SEED));
 */
import fc from "fast-check";
import {
  BREAK_EVEN_MAX_HORIZON,
  cacheAwareParams,
  cacheAwareTerms,
  evaluateCacheAwareGate,
  missingCachePrice,
  requestRates,
  evaluateOffloadGate,
  type CacheAwareInputs,
  type CachePriceRates,
  type CacheTtl,
  type OffloadAt,
  type PricingMode,
} from "../../src/gate";

// Fixed, so CI is reproducible; change it to explore (tens of thousands of runs passed while building).
export const SEED = 6_2027;

/** Whether a cache-aware decision prices every term: the gap rule never fires on a guessed cache read. */
export const gapFree = (inputs: CacheAwareInputs, row: CachePriceRates) => {
  const params = cacheAwareParams(inputs);
  return missingCachePrice(Object.values(requestRates(row, params)), params.cacheHitRate) === null;
};

export const fires = (mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates) =>
  mode === "seed"
    ? evaluateOffloadGate(inputs, row).fire
    : gapFree(inputs, row) && evaluateCacheAwareGate(inputs, row).fire;

/**
 * The same predicate, faster: past the pre-filter the cache-aware decision
 * fires exactly when its terms' net is > 0 (checked on every answer below),
 * without formatting a reason per step of a long search.
 */
export const firesFast = (mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates) =>
  mode === "seed"
    ? evaluateOffloadGate(inputs, row).fire
    : inputs.output_tokens >= (inputs.large_offload_threshold_tokens ?? 0) &&
      gapFree(inputs, row) &&
      cacheAwareTerms(row, cacheAwareParams(inputs)).net > 0;

/** The first horizon in 0..10,000 at which the decision itself fires. */
export function bruteHorizon(mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates): number | null {
  for (let horizon = 0; horizon <= BREAK_EVEN_MAX_HORIZON; horizon++) {
    if (firesFast(mode, { ...inputs, horizon }, row)) return horizon;
  }
  return null;
}

/** The first output size from the threshold up to `limit` at which the decision fires. */
export function bruteOutput(
  mode: PricingMode,
  inputs: CacheAwareInputs,
  row: CachePriceRates,
  limit: number,
): number | null {
  for (let output_tokens = inputs.large_offload_threshold_tokens ?? 0; output_tokens <= limit; output_tokens++) {
    if (firesFast(mode, { ...inputs, output_tokens }, row)) return output_tokens;
  }
  return null;
}

export const price = fc.double({ min: 0.05, max: 80, noNaN: true, noDefaultInfinity: true });
export const row = fc
  .record({
    input: price,
    outFactor: fc.double({ min: 0.5, max: 8, noNaN: true }),
    read: fc.option(fc.double({ min: 0.05, max: 1.2, noNaN: true }), { nil: undefined }),
    write: fc.option(fc.double({ min: 0.8, max: 2, noNaN: true }), { nil: undefined }),
    tier: fc.option(
      fc.record({
        threshold_tokens: fc.integer({ min: 1, max: 300_000 }),
        factor: fc.double({ min: 0.5, max: 3, noNaN: true }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ input, outFactor, read, write, tier }): CachePriceRates => {
    const base: CachePriceRates = { input, output: input * outFactor };
    if (read !== undefined) base.cache_read = input * read;
    if (write !== undefined) base.cache_write = input * write;
    if (tier === undefined) return base;
    return {
      ...base,
      long_context: {
        threshold_tokens: tier.threshold_tokens,
        input: input * tier.factor,
        output: input * outFactor * tier.factor,
      },
    };
  });

export const request = fc.record({
  model_name: fc.constant("m"),
  output_tokens: fc.oneof(fc.integer({ min: 0, max: 60_000 }), fc.double({ min: 0, max: 60_000, noNaN: true })),
  horizon: fc.integer({ min: 0, max: 40 }),
  recall_probability: fc.double({ min: 0, max: 1, noNaN: true }),
  large_offload_threshold_tokens: fc.integer({ min: 0, max: 15_000 }),
  stub_tokens: fc.integer({ min: 0, max: 3_000 }),
  recall_input_tokens: fc.integer({ min: 0, max: 8_000 }),
  recall_output_tokens: fc.integer({ min: 0, max: 3_000 }),
  cache_hit_rate: fc.double({ min: 0, max: 1, noNaN: true }),
  context_tokens: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 300_000 })),
});
/** Requests past the pre-filter (below it, no horizon fires: a test of its own). */
export const pricedRequest = request.map((inputs) => ({
  ...inputs,
  output_tokens: inputs.output_tokens + inputs.large_offload_threshold_tokens,
}));

/** Requests whose output break-even mostly falls inside a search of 60,000 sizes. */
export const outputRequest = request.chain((inputs) =>
  fc
    .record({ horizon: fc.integer({ min: 1, max: 40 }), context_tokens: fc.integer({ min: 0, max: 40_000 }) })
    .map((extra) => ({ ...inputs, ...extra })),
);
export const mode = fc.constantFrom<PricingMode>("seed", "cache_aware");

/** docs/design/economics.md §4–§5: where the stub goes in, what is cached after it, which cache write. */
export function placementAndTtl(suffix: fc.Arbitrary<number>) {
  return {
    offload_at: fc.constantFrom<OffloadAt | undefined>(undefined, "entry", "retroactive", "retroactive"),
    suffix_tokens: fc.option(suffix, { nil: undefined }),
    cache_ttl: fc.constantFrom<CacheTtl | undefined>(undefined, "5m", "1h"),
  };
}

/** Rows with a 1-hour write price or without (then the 5-minute write stands in), tiers with theirs. */
export const rowWith1h = fc
  .record({
    base: row,
    write1h: fc.option(fc.double({ min: 1, max: 3, noNaN: true }), { nil: undefined }),
    tier1h: fc.boolean(),
  })
  .map(({ base, write1h, tier1h }): CachePriceRates => {
    if (write1h === undefined) return base;
    const input = base.input ?? 0;
    const withRow = { ...base, cache_write_1h: input * write1h };
    if (base.long_context === undefined || !tier1h) return withRow;
    return {
      ...withRow,
      long_context: { ...base.long_context, cache_write_1h: (base.long_context.input ?? input) * write1h },
    };
  });

/** Retroactive and 1-hour requests, in cache_aware mode (the seed has neither). */
export const v2Request = fc
  .tuple(
    pricedRequest,
    fc.record({
      ...placementAndTtl(fc.integer({ min: 0, max: 250_000 })),
      offload_at: fc.constant<OffloadAt>("retroactive"),
    }),
  )
  .map(([inputs, extra]) => ({ ...inputs, ...extra }));
export const v2OutputRequest = fc
  .tuple(
    outputRequest,
    fc.record({
      ...placementAndTtl(fc.integer({ min: 0, max: 40_000 })),
      cache_ttl: fc.constantFrom<CacheTtl>("5m", "1h"),
    }),
  )
  .map(([inputs, extra]) => ({ ...inputs, ...extra }));
