/**
 * @module test/gate/retroactive-arbitraries
 *
 * fast-check arbitraries for the retroactive, 1-hour and ranges property
 * tests: rows with optional tier factors and 1-hour prices, requests placed
 * at entry or after it, and the outcome as the route decides it.
 *
 * @example
 * fc.assert(fc.property(mode, request, row, (m, inputs, r) => decide(m, inputs, r).status === "priced"), RUNS);
 */
import fc from "fast-check";
import {
  decideOutcome,
  type CacheAwareInputs,
  type CachePriceRates,
  type CacheTtl,
  type OffloadAt,
  type PricingMode,
} from "../../src/gate";
import { runs } from "../support/runs";

// Fixed, so CI is reproducible; change it to explore.
export const SEED = 13_2026;
export const RUNS = runs(3_000);

export const price = fc.double({ min: 0.01, max: 100, noNaN: true, noDefaultInfinity: true });
export const factor = (min: number, max: number) => fc.option(fc.double({ min, max, noNaN: true }), { nil: undefined });

/** Rows with or without cache prices, a 1-hour write and a tier (dearer or cheaper than the base). */
export const row = fc
  .record({
    input: price,
    out: fc.double({ min: 0.5, max: 8, noNaN: true }),
    read: factor(0, 1.2),
    write: factor(0.8, 2),
    write1h: factor(1, 3),
    tier: fc.option(
      fc.record({
        threshold_tokens: fc.integer({ min: 1, max: 400_000 }),
        factor: fc.double({ min: 0.5, max: 3, noNaN: true }),
        cached: fc.boolean(),
      }),
      {
        nil: undefined,
      },
    ),
  })
  .map(({ input, out, read, write, write1h, tier }): CachePriceRates => {
    const base: CachePriceRates = { input, output: input * out };
    if (read !== undefined) base.cache_read = input * read;
    if (write !== undefined) base.cache_write = input * write;
    if (write1h !== undefined) base.cache_write_1h = input * write1h;
    if (tier === undefined) return base;
    const f = tier.factor;
    const long_context: NonNullable<CachePriceRates["long_context"]> = {
      threshold_tokens: tier.threshold_tokens,
      input: input * f,
      output: input * out * f,
    };
    if (tier.cached) {
      if (base.cache_read !== undefined) long_context.cache_read = base.cache_read * f;
      if (base.cache_write !== undefined) long_context.cache_write = base.cache_write * f;
      if (base.cache_write_1h !== undefined) long_context.cache_write_1h = base.cache_write_1h * f;
    }
    return { ...base, long_context };
  });

export const unit = fc.double({ min: 0, max: 1, noNaN: true });

/** Requests past the pre-filter, in every placement and TTL. */
export const request = fc
  .record({
    model_name: fc.constant("m"),
    output_tokens: fc.oneof(fc.integer({ min: 0, max: 200_000 }), fc.double({ min: 0, max: 200_000, noNaN: true })),
    horizon: fc.integer({ min: 0, max: 60 }),
    recall_probability: unit,
    large_offload_threshold_tokens: fc.integer({ min: 0, max: 15_000 }),
    stub_tokens: fc.integer({ min: 0, max: 3_000 }),
    recall_input_tokens: fc.integer({ min: 0, max: 8_000 }),
    recall_output_tokens: fc.integer({ min: 0, max: 3_000 }),
    cache_hit_rate: unit,
    context_tokens: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400_000 })),
    offload_at: fc.constantFrom<OffloadAt>("entry", "retroactive"),
    suffix_tokens: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 200_000 })),
    cache_ttl: fc.constantFrom<CacheTtl>("5m", "1h"),
  })
  .map((inputs) => ({ ...inputs, output_tokens: inputs.output_tokens + inputs.large_offload_threshold_tokens }));

export const mode = fc.constantFrom<PricingMode>("seed", "cache_aware");
export const priced = (r: CachePriceRates) => ({ status: "priced" as const, row: r, canonical: "m" });
export const decide = (m: PricingMode, inputs: CacheAwareInputs, r: CachePriceRates) =>
  decideOutcome(m, inputs, priced(r));
