import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  evaluateCacheAwareGate,
  evaluateOffloadGate,
  type CacheAwareInputs,
  type CachePriceRates,
} from "../../src/gate";
import { OPUS } from "../fixtures/rows";
import { runs } from "../support/runs";

// Fixed, so CI is reproducible; change it to explore (tens of thousands of runs passed while building).
const SEED = 6_2026;
import { EXAMPLE_2 } from "../fixtures/cache-aware-examples";

const rate = fc.double({ min: 0.01, max: 100, noNaN: true, noDefaultInfinity: true });

const seedRequest = fc.record({
  output_tokens: fc.oneof(fc.integer({ min: 0, max: 2_000_000 }), fc.double({ min: 0, max: 2e6, noNaN: true })),
  horizon: fc.integer({ min: 0, max: 1_000 }),
  recall_probability: fc.double({ min: 0, max: 1, noNaN: true }),
  large_offload_threshold_tokens: fc.integer({ min: 0, max: 20_000 }),
  stub_tokens: fc.integer({ min: 0, max: 5_000 }),
  recall_input_tokens: fc.integer({ min: 0, max: 20_000 }),
  recall_output_tokens: fc.integer({ min: 0, max: 5_000 }),
  cache_hit_rate: fc.double({ min: 0, max: 1, noNaN: true }),
});

describe("the reduction to the seed", () => {
  it("equals the seed bit for bit when cache_read = cache_write = input, no tier and context_tokens = 0", () => {
    fc.assert(
      fc.property(seedRequest, rate, rate, (request, input, output) => {
        const inputs = { ...request, model_name: "m", context_tokens: 0 };
        const seed = evaluateOffloadGate(inputs, { input, output });
        const cache = evaluateCacheAwareGate(inputs, { input, output, cache_read: input, cache_write: input });
        // A row without cache prices prices them at `input`: the same reduction.
        const bare = evaluateCacheAwareGate(inputs, { input, output });
        for (const d of [cache, bare]) {
          expect(d.fire).toBe(seed.fire);
          expect(Object.is(d.net_saving_usd, seed.net_saving_usd)).toBe(true);
          expect(Object.is(d.reprefill_saving_usd, seed.reprefill_saving_usd)).toBe(true);
          expect(Object.is(d.stub_carry_cost_usd, seed.stub_carry_cost_usd)).toBe(true);
          expect(Object.is(d.expected_recall_hop_cost_usd, seed.expected_recall_hop_cost_usd)).toBe(true);
          expect(d.context_premium_saving_usd).toBe(0);
        }
      }),
      { numRuns: runs(3_000), seed: SEED },
    );
  });
});

/** A row with read ≤ input ≤ write, and optionally a tier at least as dear as the base. */
const cachedRow = fc
  .record({
    input: rate,
    outFactor: fc.double({ min: 1, max: 8, noNaN: true }),
    readFactor: fc.double({ min: 0.05, max: 1, noNaN: true }),
    writeFactor: fc.double({ min: 1, max: 2, noNaN: true }),
    tier: fc.option(
      fc.record({ threshold_tokens: fc.integer({ min: 1, max: 400_000 }), factor: fc.constantFrom(1, 1.5, 2, 3) }),
      { nil: undefined },
    ),
  })
  .map(({ input, outFactor, readFactor, writeFactor, tier }): CachePriceRates => {
    const base = { input, output: input * outFactor, cache_read: input * readFactor, cache_write: input * writeFactor };
    if (tier === undefined) return base;
    const f = tier.factor;
    return {
      ...base,
      long_context: {
        threshold_tokens: tier.threshold_tokens,
        input: base.input * f,
        output: base.output * f,
        cache_read: base.cache_read * f,
        cache_write: base.cache_write * f,
      },
    };
  });

const cacheRequest = seedRequest.chain((request) =>
  fc
    .record({ context_tokens: fc.integer({ min: 0, max: 500_000 }) })
    .map((extra) => ({ ...request, ...extra, model_name: "m" })),
);

const net = (inputs: CacheAwareInputs, row: CachePriceRates) => evaluateCacheAwareGate(inputs, row).net_saving_usd;

describe("monotonicity of net (cache_aware, and the seed where it applies)", () => {
  it("never decreases as output_tokens grows", () => {
    fc.assert(
      fc.property(cacheRequest, cachedRow, fc.integer({ min: 0, max: 300_000 }), (request, row, extra) => {
        const inputs = { ...request, large_offload_threshold_tokens: 0 };
        const larger = { ...inputs, output_tokens: inputs.output_tokens + extra };
        expect(net(larger, row)).toBeGreaterThanOrEqual(net(inputs, row));
        expect(evaluateOffloadGate(larger, row).net_saving_usd).toBeGreaterThanOrEqual(
          evaluateOffloadGate(inputs, row).net_saving_usd,
        );
      }),
      { numRuns: runs(2_000), seed: SEED },
    );
  });

  it("never increases as recall_probability grows", () => {
    fc.assert(
      fc.property(cacheRequest, cachedRow, fc.double({ min: 0, max: 1, noNaN: true }), (request, row, other) => {
        const inputs = { ...request, large_offload_threshold_tokens: 0 };
        const [low, high] = [Math.min(inputs.recall_probability, other), Math.max(inputs.recall_probability, other)];
        expect(net({ ...inputs, recall_probability: high }, row)).toBeLessThanOrEqual(
          net({ ...inputs, recall_probability: low }, row),
        );
        expect(evaluateOffloadGate({ ...inputs, recall_probability: high }, row).net_saving_usd).toBeLessThanOrEqual(
          evaluateOffloadGate({ ...inputs, recall_probability: low }, row).net_saving_usd,
        );
      }),
      { numRuns: runs(2_000), seed: SEED },
    );
  });

  it("never increases as cache_hit_rate grows, with context_tokens = 0 and output_tokens ≥ stub_tokens", () => {
    fc.assert(
      fc.property(cacheRequest, cachedRow, fc.double({ min: 0, max: 1, noNaN: true }), (request, row, other) => {
        const inputs = {
          ...request,
          large_offload_threshold_tokens: 0,
          context_tokens: 0,
          output_tokens: Math.max(request.output_tokens, request.stub_tokens),
        };
        const [low, high] = [Math.min(inputs.cache_hit_rate, other), Math.max(inputs.cache_hit_rate, other)];
        const atLow = evaluateCacheAwareGate({ ...inputs, cache_hit_rate: low }, row);
        const atHigh = evaluateCacheAwareGate({ ...inputs, cache_hit_rate: high }, row);
        // net is a difference of two terms that both shrink as q grows; exact arithmetic
        // never lets it rise, floating point may by a few ulps of the terms.
        const ulps =
          4 *
          Number.EPSILON *
          (atLow.reprefill_saving_usd + atLow.stub_carry_cost_usd + atLow.expected_recall_hop_cost_usd);
        expect(atHigh.net_saving_usd).toBeLessThanOrEqual(atLow.net_saving_usd + ulps);
      }),
      { numRuns: runs(2_000), seed: SEED },
    );
  });

  it("can increase with cache_hit_rate once context_tokens > 0: a warm cache cheapens the recall hop's re-read", () => {
    // A 10,000-token output, 150,000 tokens of history, a recall that always happens.
    const small = { ...EXAMPLE_2, output_tokens: 10_000, recall_probability: 1 };
    const cold = evaluateCacheAwareGate({ ...small, cache_hit_rate: 0.2 }, OPUS);
    const warm = evaluateCacheAwareGate({ ...small, cache_hit_rate: 0.9 }, OPUS);
    expect(warm.net_saving_usd).toBeGreaterThan(cold.net_saving_usd);
    expect(warm.expected_recall_hop_cost_usd).toBeLessThan(cold.expected_recall_hop_cost_usd);
  });
});
