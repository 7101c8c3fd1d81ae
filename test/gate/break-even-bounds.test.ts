import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { breakEven } from "../../src/gate";
import { runs } from "../support/runs";
import {
  SEED,
  bruteHorizon,
  bruteOutput,
  fires,
  firesFast,
  mode,
  placementAndTtl,
  row,
  rowWith1h,
  v2OutputRequest,
  v2Request,
} from "./break-even-support";

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
