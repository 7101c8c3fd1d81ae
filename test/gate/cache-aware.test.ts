import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideOutcome, evaluateCacheAwareGate, evaluateOffloadGate, type CachePriceRates } from "../../src/gate";
import { OPUS, SONNET_45 } from "../fixtures/rows";
import { runs } from "../support/runs";

// Fixed, so CI is reproducible; change it to explore (tens of thousands of runs passed while building).
const SEED = 6_2026;
import { EXAMPLE_1, EXAMPLE_2, EXAMPLE_3 } from "../fixtures/cache-aware-examples";

describe("the cache-aware gate on the design note's worked examples", () => {
  it("example 1 fires with net ≈ $0.160755, where the seed overstates it at $0.38925", () => {
    const d = evaluateCacheAwareGate(EXAMPLE_1, OPUS);
    expect(d.fire).toBe(true);
    expect(d.reprefill_saving_usd).toBeCloseTo(0.1895, 12);
    expect(d.context_premium_saving_usd).toBe(0);
    expect(d.stub_carry_cost_usd).toBeCloseTo(0.001895, 12);
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.02685, 12);
    expect(d.net_saving_usd).toBeCloseTo(0.160755, 12);
    // 0.02685 is held just below the tie, so it prints as 0.0268, as Python would.
    expect(d.reason).toBe(
      "net=$0.1608 (saving=$0.1895 + premium=$0.0000 − stub=$0.0019 − recall=$0.0268); " +
        "H=4 p_recall=0.30 q=0.90 context=60000 tier=none mode=cache_aware model=claude-opus-4-6",
    );
    expect(evaluateOffloadGate(EXAMPLE_1, OPUS).net_saving_usd).toBe(0.38925000000000004);
  });

  it("example 2 does not fire in cache_aware mode, while the seed fires with net $0.10675", () => {
    const cache = evaluateCacheAwareGate(EXAMPLE_2, OPUS);
    expect(cache.fire).toBe(false);
    expect(cache.reprefill_saving_usd).toBeCloseTo(0.0879, 12);
    expect(cache.stub_carry_cost_usd).toBeCloseTo(0.001465, 12);
    expect(cache.expected_recall_hop_cost_usd).toBeCloseTo(0.093125, 12);
    expect(cache.net_saving_usd).toBeCloseTo(-0.00669, 12);
    expect(cache.reason).toMatch(
      /^net=\$-0\.0067 \(saving=\$0\.0879 \+ premium=\$0\.0000 − stub=\$0\.0015 − recall=\$0\.0931\); H=2 p_recall=0\.50 q=0\.90 context=150000 tier=none mode=cache_aware/,
    );

    const seed = evaluateOffloadGate(EXAMPLE_2, OPUS);
    expect(seed.fire).toBe(true);
    expect(seed.net_saving_usd).toBeCloseTo(0.10675, 12);

    expect(
      decideOutcome("cache_aware", EXAMPLE_2, { status: "priced", row: OPUS, canonical: "claude-opus-4-6" })
        .reason_code,
    ).toBe("net_not_positive");
    expect(
      decideOutcome("seed", EXAMPLE_2, { status: "priced", row: OPUS, canonical: "claude-opus-4-6" }).reason_code,
    ).toBe("net_positive");
  });

  it("example 3 fires mostly on the long-context premium that stubbing avoids", () => {
    const d = evaluateCacheAwareGate(EXAMPLE_3, SONNET_45);
    expect(d.fire).toBe(true);
    expect(d.reprefill_saving_usd).toBeCloseTo(0.2274, 12);
    expect(d.context_premium_saving_usd).toBeCloseTo(0.4902, 12);
    expect(d.stub_carry_cost_usd).toBeCloseTo(0.001137, 12);
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.041265, 12);
    expect(d.net_saving_usd).toBeCloseTo(0.675198, 12);
    expect(d.reason).toContain("+ premium=$0.4902 ");
    expect(d.reason).toContain(" tier=keep mode=cache_aware model=claude-sonnet-4-5");
  });
});

describe("the long-context tier", () => {
  const at = (context_tokens: number, output_tokens = 20_000) =>
    evaluateCacheAwareGate({ ...EXAMPLE_3, context_tokens, output_tokens }, SONNET_45);

  it("applies only once a request's input exceeds the threshold, to the whole request", () => {
    // 180,000 + 20,000 = 200,000 is not above the threshold: no tier, no premium.
    const below = at(180_000);
    expect(below.context_premium_saving_usd).toBe(0);
    expect(below.reason).toContain("tier=none");
    // One more token of history and keeping the output is priced at the tier, all of it.
    const above = at(180_001);
    expect(above.reason).toContain("tier=keep");
    expect(above.reprefill_saving_usd).toBeCloseTo(below.reprefill_saving_usd * 2, 12);
    expect(above.context_premium_saving_usd).toBeCloseTo(180_001 * 4 * (1.29e-6 - 0.645e-6), 12);
    expect(above.net_saving_usd - below.net_saving_usd).toBeGreaterThan(0.4);
  });

  it("prices both requests at the tier, with no premium, once the stub alone crosses it", () => {
    const both = at(250_000);
    expect(both.reason).toContain("tier=both");
    expect(both.context_premium_saving_usd).toBe(0);
    expect(both.stub_carry_cost_usd).toBeCloseTo(200 * (7.5e-6 + 3 * 1.29e-6), 15);
  });

  it("falls back to the base price for a price the tier leaves out, then to the input price", () => {
    // gemini-2.5-pro: neither the row nor its tier has a cache write price.
    const gemini: CachePriceRates = {
      input: 1.25,
      output: 10,
      cache_read: 0.125,
      long_context: { threshold_tokens: 200_000, input: 2.5, output: 15, cache_read: 0.25 },
    };
    const d = evaluateCacheAwareGate({ ...EXAMPLE_1, context_tokens: 250_000, cache_hit_rate: 0 }, gemini);
    // q = 0: every later turn writes again, at the tier's input price (2.5), never 0.
    expect(d.reprefill_saving_usd).toBe(20_000 * 2.5e-6 * 4);
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.3 * (2_000 * 2.5e-6 + 500 * 15e-6 + 250_000 * 2.5e-6), 15);
  });
});

describe("robustness", () => {
  it("never throws, and keeps every term finite, on finite inputs however extreme", () => {
    const finite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 });
    const anyPrice = fc.double({ min: 0, max: 1e6, noNaN: true });
    const anyRow = fc.record({
      input: anyPrice,
      output: anyPrice,
      cache_read: fc.option(anyPrice, { nil: undefined }),
      cache_write: fc.option(anyPrice, { nil: undefined }),
      long_context: fc.option(
        fc.record({
          threshold_tokens: fc.integer({ min: 1, max: 1e12 }),
          input: fc.option(anyPrice, { nil: undefined }),
        }),
        {
          nil: undefined,
        },
      ),
    });
    const anyInputs = fc.record({
      model_name: fc.string({ maxLength: 20 }),
      output_tokens: fc.double({ min: 0, max: 1e12, noNaN: true }),
      horizon: finite,
      recall_probability: finite,
      large_offload_threshold_tokens: fc.double({ min: 0, max: 1e12, noNaN: true }),
      stub_tokens: fc.double({ min: 0, max: 1e12, noNaN: true }),
      recall_input_tokens: fc.double({ min: 0, max: 1e12, noNaN: true }),
      recall_output_tokens: fc.double({ min: 0, max: 1e12, noNaN: true }),
      cache_hit_rate: finite,
      context_tokens: finite,
    });
    fc.assert(
      fc.property(fc.constantFrom("seed" as const, "cache_aware" as const), anyInputs, anyRow, (mode, inputs, row) => {
        const outcome = decideOutcome(mode, inputs, { status: "priced", row, canonical: "m" });
        for (const value of [
          outcome.net_saving_usd,
          outcome.reprefill_saving_usd,
          outcome.stub_carry_cost_usd,
          outcome.expected_recall_hop_cost_usd,
          outcome.context_premium_saving_usd,
        ]) {
          expect(Number.isFinite(value)).toBe(true);
        }
        for (const breakEven of [outcome.break_even_horizon, outcome.break_even_output_tokens]) {
          expect(breakEven === null || Number.isSafeInteger(breakEven)).toBe(true);
        }
      }),
      { numRuns: runs(1_000), seed: SEED },
    );
  });
});
