import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { breakEven, evaluateCacheAwareGate } from "../../src/gate";
import { OPUS, SONNET_45 } from "../fixtures/rows";
import { runs } from "../support/runs";
import { SEED, bruteHorizon, bruteOutput, fires, mode, outputRequest, pricedRequest, row } from "./break-even-support";

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
