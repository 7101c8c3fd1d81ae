import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BREAK_EVEN_MAX_HORIZON,
  breakEven,
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
import { OPUS, SONNET_45 } from "../fixtures/rows";
import { runs } from "../support/runs";

// Fixed, so CI is reproducible; change it to explore (tens of thousands of runs passed while building).
const SEED = 6_2027;

/** Whether a cache-aware decision prices every term: the gap rule never fires on a guessed cache read. */
const gapFree = (inputs: CacheAwareInputs, row: CachePriceRates) => {
  const params = cacheAwareParams(inputs);
  return missingCachePrice(Object.values(requestRates(row, params)), params.cacheHitRate) === null;
};

const fires = (mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates) =>
  mode === "seed"
    ? evaluateOffloadGate(inputs, row).fire
    : gapFree(inputs, row) && evaluateCacheAwareGate(inputs, row).fire;

/**
 * The same predicate, faster: past the pre-filter the cache-aware decision
 * fires exactly when its terms' net is > 0 (checked on every answer below),
 * without formatting a reason per step of a long search.
 */
const firesFast = (mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates) =>
  mode === "seed"
    ? evaluateOffloadGate(inputs, row).fire
    : inputs.output_tokens >= (inputs.large_offload_threshold_tokens ?? 0) &&
      gapFree(inputs, row) &&
      cacheAwareTerms(row, cacheAwareParams(inputs)).net > 0;

/** The first horizon in 0..10,000 at which the decision itself fires. */
function bruteHorizon(mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates): number | null {
  for (let horizon = 0; horizon <= BREAK_EVEN_MAX_HORIZON; horizon++) {
    if (firesFast(mode, { ...inputs, horizon }, row)) return horizon;
  }
  return null;
}

/** The first output size from the threshold up to `limit` at which the decision fires. */
function bruteOutput(mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates, limit: number): number | null {
  for (let output_tokens = inputs.large_offload_threshold_tokens ?? 0; output_tokens <= limit; output_tokens++) {
    if (firesFast(mode, { ...inputs, output_tokens }, row)) return output_tokens;
  }
  return null;
}

const price = fc.double({ min: 0.05, max: 80, noNaN: true, noDefaultInfinity: true });
const row = fc
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

const request = fc.record({
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
const pricedRequest = request.map((inputs) => ({
  ...inputs,
  output_tokens: inputs.output_tokens + inputs.large_offload_threshold_tokens,
}));

/** Requests whose output break-even mostly falls inside a search of 60,000 sizes. */
const outputRequest = request.chain((inputs) =>
  fc
    .record({ horizon: fc.integer({ min: 1, max: 40 }), context_tokens: fc.integer({ min: 0, max: 40_000 }) })
    .map((extra) => ({ ...inputs, ...extra })),
);
const mode = fc.constantFrom<PricingMode>("seed", "cache_aware");

/** docs/design/economics.md §4–§5: where the stub goes in, what is cached after it, which cache write. */
function placementAndTtl(suffix: fc.Arbitrary<number>) {
  return {
    offload_at: fc.constantFrom<OffloadAt | undefined>(undefined, "entry", "retroactive", "retroactive"),
    suffix_tokens: fc.option(suffix, { nil: undefined }),
    cache_ttl: fc.constantFrom<CacheTtl | undefined>(undefined, "5m", "1h"),
  };
}

/** Rows with a 1-hour write price or without (then the 5-minute write stands in), tiers with theirs. */
const rowWith1h = fc
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
const v2Request = fc
  .tuple(
    pricedRequest,
    fc.record({
      ...placementAndTtl(fc.integer({ min: 0, max: 250_000 })),
      offload_at: fc.constant<OffloadAt>("retroactive"),
    }),
  )
  .map(([inputs, extra]) => ({ ...inputs, ...extra }));
const v2OutputRequest = fc
  .tuple(
    outputRequest,
    fc.record({
      ...placementAndTtl(fc.integer({ min: 0, max: 40_000 })),
      cache_ttl: fc.constantFrom<CacheTtl>("5m", "1h"),
    }),
  )
  .map(([inputs, extra]) => ({ ...inputs, ...extra }));

const found = { horizon: { priced: 0, some: 0 }, output: { runs: 0, inRange: 0 } };

describe("break_even_horizon", () => {
  it("is the first horizon at which the decision fires, as a search of 0..10,000 finds", () => {
    fc.assert(
      fc.property(mode, pricedRequest, row, (m, inputs, r) => {
        expect(breakEven(m, inputs, r).break_even_horizon).toBe(bruteHorizon(m, inputs, r));
        if (inputs.output_tokens >= inputs.large_offload_threshold_tokens) found.horizon.priced++;
        if (breakEven(m, inputs, r).break_even_horizon !== null) found.horizon.some++;
      }),
      { numRuns: runs(3_000), seed: SEED },
    );
    // The generators must exercise the interesting case: most priced cases have an answer.
    expect(found.horizon.some).toBeGreaterThan(found.horizon.priced / 2);
  }, 120_000);

  it("is null when the output is below the pre-filter, at every horizon", () => {
    const inputs = {
      model_name: "m",
      output_tokens: 9_999,
      horizon: 4,
      recall_probability: 0.3,
      cache_hit_rate: 0.9,
      context_tokens: 0,
    };
    expect(breakEven("seed", inputs, OPUS).break_even_horizon).toBeNull();
  });

  it("is 1 for worked example 1 and null when the stub is as large as the output", () => {
    const inputs = {
      model_name: "m",
      output_tokens: 20_000,
      horizon: 4,
      recall_probability: 0.3,
      cache_hit_rate: 0.9,
      context_tokens: 60_000,
    };
    expect(breakEven("cache_aware", inputs, OPUS).break_even_horizon).toBe(1);
    expect(breakEven("seed", { ...inputs, stub_tokens: 20_000 }, OPUS).break_even_horizon).toBeNull();
  });

  it("is 3 for worked example 2 in cache_aware mode: it would fire with one more turn", () => {
    const inputs = {
      model_name: "m",
      output_tokens: 12_000,
      horizon: 2,
      recall_probability: 0.5,
      cache_hit_rate: 0.9,
      context_tokens: 150_000,
    };
    expect(breakEven("cache_aware", inputs, OPUS).break_even_horizon).toBe(3);
    expect(evaluateCacheAwareGate({ ...inputs, horizon: 3 }, OPUS).fire).toBe(true);
    expect(evaluateCacheAwareGate({ ...inputs, horizon: 2 }, OPUS).fire).toBe(false);
  });
});

describe("break_even_output_tokens", () => {
  const LIMIT = 60_000;

  it("is the first output size from the threshold at which the decision fires, as a search finds", () => {
    fc.assert(
      fc.property(mode, outputRequest, row, (m, inputs, r) => {
        const closed = breakEven(m, inputs, r).break_even_output_tokens;
        found.output.runs++;
        if (closed !== null && closed <= LIMIT) found.output.inRange++;
        const brute = bruteOutput(m, inputs, r, LIMIT);
        if (closed !== null && closed <= LIMIT) expect(closed).toBe(brute);
        else expect(brute).toBeNull();
        if (closed !== null) {
          expect(fires(m, { ...inputs, output_tokens: closed }, r)).toBe(true);
          expect(closed).toBeGreaterThanOrEqual(inputs.large_offload_threshold_tokens);
        }
      }),
      { numRuns: runs(2_000), seed: SEED },
    );
    expect(found.output.inRange).toBeGreaterThan(found.output.runs / 2);
  }, 120_000);

  it("is never below the pre-filter threshold", () => {
    const inputs = {
      model_name: "m",
      output_tokens: 20_000,
      horizon: 4,
      recall_probability: 0.3,
      cache_hit_rate: 0.9,
      context_tokens: 0,
    };
    // In seed mode 900 tokens would already pay at H=4; the pre-filter still says 10,000.
    expect(
      breakEven("seed", { ...inputs, large_offload_threshold_tokens: 10_000 }, OPUS).break_even_output_tokens,
    ).toBe(10_000);
    expect(breakEven("seed", { ...inputs, large_offload_threshold_tokens: 0 }, OPUS).break_even_output_tokens).toBe(
      bruteOutput("seed", { ...inputs, large_offload_threshold_tokens: 0 }, OPUS, 10_000),
    );
  });

  it("is null at horizon 0, where nothing is carried", () => {
    const inputs = {
      model_name: "m",
      output_tokens: 20_000,
      horizon: 0,
      recall_probability: 0.3,
      cache_hit_rate: 0.9,
      context_tokens: 0,
    };
    expect(breakEven("seed", inputs, OPUS)).toEqual({ break_even_horizon: 1, break_even_output_tokens: null });
  });

  it("solves the piece past a tier boundary when the untiered piece has no root", () => {
    // sonnet-4-5 with 199,000 tokens of history: outputs up to 1,000 tokens stay untiered.
    const inputs = {
      model_name: "claude-sonnet-4-5",
      output_tokens: 20_000,
      horizon: 1,
      recall_probability: 1,
      cache_hit_rate: 0.9,
      context_tokens: 199_000,
      large_offload_threshold_tokens: 0,
      stub_tokens: 200,
      recall_input_tokens: 2_000,
      recall_output_tokens: 500,
    };
    const closed = breakEven("cache_aware", inputs, SONNET_45).break_even_output_tokens;
    expect(closed).toBe(bruteOutput("cache_aware", inputs, SONNET_45, 200_000));
    // The answer is just past the boundary: the tier's premium on 199,000 tokens pays for the recall hop.
    expect(closed).toBeGreaterThan(1_000);
    expect(evaluateCacheAwareGate({ ...inputs, output_tokens: 1_000 }, SONNET_45).fire).toBe(false);
  });
});

describe("both break-evens on retroactive and 1-hour inputs", () => {
  it("break_even_horizon is the first horizon at which a retroactive decision fires, at either TTL", () => {
    let some = 0;
    fc.assert(
      fc.property(v2Request, rowWith1h, (inputs, r) => {
        const closed = breakEven("cache_aware", inputs, r).break_even_horizon;
        expect(closed).toBe(bruteHorizon("cache_aware", inputs, r));
        if (closed !== null) some++;
      }),
      { numRuns: runs(3_000), seed: SEED },
    );
    expect(some).toBeGreaterThan(1_000);
  }, 120_000);

  it("break_even_output_tokens is the first output size at which a 1-hour or retroactive decision fires", () => {
    const LIMIT = 60_000;
    let inRange = 0;
    fc.assert(
      fc.property(v2OutputRequest, rowWith1h, (inputs, r) => {
        const closed = breakEven("cache_aware", inputs, r).break_even_output_tokens;
        const brute = bruteOutput("cache_aware", inputs, r, LIMIT);
        if (closed !== null && closed <= LIMIT) {
          inRange++;
          expect(closed).toBe(brute);
        } else expect(brute).toBeNull();
      }),
      { numRuns: runs(3_000), seed: SEED },
    );
    expect(inRange).toBeGreaterThan(1_000);
  }, 120_000);

  it("agree with the decision where the slope is zero: cache_read 0 and q = 1, entry or retroactive", () => {
    fc.assert(
      fc.property(fc.tuple(v2Request, fc.boolean()), row, ([inputs, entry], r) => {
        const flat = {
          ...inputs,
          cache_hit_rate: 1,
          offload_at: entry ? ("entry" as const) : ("retroactive" as const),
        };
        const zeroRead = {
          ...r,
          cache_read: 0,
          ...(r.long_context ? { long_context: { ...r.long_context, cache_read: 0 } } : {}),
        };
        const closed = breakEven("cache_aware", flat, zeroRead).break_even_horizon;
        expect(closed).toBe(bruteHorizon("cache_aware", flat, zeroRead));
        expect(closed).toBe(fires("cache_aware", { ...flat, horizon: 1 }, zeroRead) ? 1 : null);
      }),
      { numRuns: runs(300), seed: SEED },
    );
  }, 120_000);
});

describe("both break-evens at the API's bounds", () => {
  // Prices up to 10⁶ USD/M and tokens up to 10¹², tiers dearer or cheaper or
  // partial: the closed form must still land on the decision's own answer.
  const extremePrice = fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(0, 1e-9, 3, 6.25, 1e6));
  const optionalPrice = fc.option(extremePrice, { nil: undefined });
  const extremeRow = fc.record({
    input: extremePrice,
    output: extremePrice,
    cache_read: optionalPrice,
    cache_write: optionalPrice,
    cache_write_1h: optionalPrice,
    long_context: fc.option(
      fc.record({
        threshold_tokens: fc.integer({ min: 1, max: 1e12 }),
        input: optionalPrice,
        output: optionalPrice,
        cache_read: optionalPrice,
        cache_write: optionalPrice,
        cache_write_1h: optionalPrice,
      }),
      { nil: undefined },
    ),
  });
  const tokens = fc.oneof(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 0, max: 50_000 }));
  const extremeRequest = fc
    .record({
      model_name: fc.constant("m"),
      output_tokens: tokens,
      horizon: fc.oneof(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 30 })),
      recall_probability: fc.double({ min: 0, max: 1, noNaN: true }),
      large_offload_threshold_tokens: tokens,
      stub_tokens: tokens,
      recall_input_tokens: tokens,
      recall_output_tokens: tokens,
      cache_hit_rate: fc.double({ min: 0, max: 1, noNaN: true }),
      context_tokens: tokens,
      ...placementAndTtl(tokens),
    })
    .map((inputs) => ({
      ...inputs,
      output_tokens: Math.max(inputs.output_tokens, inputs.large_offload_threshold_tokens),
    }));

  it("fire at the break-even and not just below it, or never where they are null", () => {
    fc.assert(
      fc.property(mode, extremeRequest, extremeRow, (m, inputs, r) => {
        const { break_even_horizon: h, break_even_output_tokens: o } = breakEven(m, inputs, r);
        expect(h).toBe(bruteHorizon(m, inputs, r));
        if (o !== null) {
          expect(o).toBeGreaterThanOrEqual(inputs.large_offload_threshold_tokens);
          expect(fires(m, { ...inputs, output_tokens: o }, r)).toBe(true);
          for (let x = Math.max(inputs.large_offload_threshold_tokens, o - 500); x < o; x++) {
            expect(firesFast(m, { ...inputs, output_tokens: x }, r)).toBe(false);
          }
        } else {
          for (const x of [inputs.large_offload_threshold_tokens, 1e11, 1e12]) {
            if (x >= inputs.large_offload_threshold_tokens)
              expect(firesFast(m, { ...inputs, output_tokens: x }, r)).toBe(false);
          }
        }
      }),
      { numRuns: runs(400), seed: SEED },
    );
  }, 120_000);
});
