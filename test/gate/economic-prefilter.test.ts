/**
 * @module test/economic-prefilter
 *
 * The economic pre-filter in the core (docs/design/economics.md §1.2): in cache_aware mode the size
 * pre-filter is the request's break-even size (large_offload_threshold_tokens
 * is only a floor someone may set), the seed keeps the reference's 10,000;
 * a retroactive recall hop reads everything before the recalled slice when
 * it is appended (the default) and writes everything after the stub when it
 * is restored in place. The hand numbers are docs/economics.md's D1 and R1;
 * scripts/reference/economics.py (python fractions) gives the same.
 */
import { describe, expect, it } from "vitest";
import {
  breakEven,
  decideOutcome,
  evaluateCacheAwareGate,
  preFilterTokens,
  type CacheAwareInputs,
} from "../../src/gate";
import { OPUS } from "../fixtures/rows";

const priced = { status: "priced", row: OPUS, canonical: "claude-opus-4-6" } as const;

/** D1: a medium output, 4,000 tokens after 100,000 cached ones, 20 turns left. */
const D1: CacheAwareInputs = {
  model_name: "claude-opus-4-6",
  output_tokens: 4_000,
  horizon: 20,
  recall_probability: 0.25,
  cache_hit_rate: 0.9,
  context_tokens: 100_000,
  stub_tokens: 200,
  recall_input_tokens: 2_000,
  recall_output_tokens: 500,
};

describe("the economic pre-filter in cache_aware mode", () => {
  it("prices a medium output the seed's 10,000-token pre-filter would refuse, and fires on D1 for ≈ $0.06824", () => {
    const d = decideOutcome("cache_aware", D1, priced);
    expect(d.reason_code).toBe("net_positive");
    // 4,000 · carry(20) − 200 · carry(20) − 0.25 · (0.0125 + 0.0125 + 100,000 · 1.075e-6), carry(20) = 26.675e-6.
    expect(d.reprefill_saving_usd).toBeCloseTo(0.1067, 12);
    expect(d.stub_carry_cost_usd).toBeCloseTo(0.005335, 12);
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.033125, 12);
    expect(d.net_saving_usd).toBeCloseTo(0.06824, 12);
    expect(d.break_even_output_tokens).toBe(1_442);
  });

  it("answers net_not_positive below the break-even size, and fires from it on", () => {
    const below = decideOutcome("cache_aware", { ...D1, output_tokens: 1_441 }, priced);
    expect(below.fire).toBe(false);
    expect(below.reason_code).toBe("net_not_positive");
    expect(below.reason).toContain("mode=cache_aware");
    expect(below.break_even_output_tokens).toBe(1_442);
    expect(decideOutcome("cache_aware", { ...D1, output_tokens: 1_442 }, priced).fire).toBe(true);
  });

  it("moves the break-even size with the priors: at 4 turns left it is 3,697 tokens", () => {
    expect(breakEven("cache_aware", { ...D1, horizon: 4 }, OPUS).break_even_output_tokens).toBe(3_697);
    expect(decideOutcome("cache_aware", { ...D1, horizon: 4 }, priced).net_saving_usd).toBeCloseTo(0.00288, 12);
  });

  it("keeps a floor that is set, in the reference's words, and never prices below it", () => {
    const floored = decideOutcome("cache_aware", { ...D1, large_offload_threshold_tokens: 5_000 }, priced);
    expect(floored).toMatchObject({ fire: false, reason_code: "below_threshold", break_even_output_tokens: null });
    expect(floored.reason).toBe("below large_offload_threshold (4000 < 5000 tokens)");
    expect(
      breakEven("cache_aware", { ...D1, output_tokens: 6_000, large_offload_threshold_tokens: 5_000 }, OPUS)
        .break_even_output_tokens,
    ).toBe(5_000);
  });

  it("leaves the seed's pre-filter where the reference has it: 10,000 tokens, before any pricing", () => {
    const seed = decideOutcome("seed", D1, priced);
    expect(seed.reason_code).toBe("below_threshold");
    expect(seed.reason).toBe("below large_offload_threshold (4000 < 10000 tokens)");
    expect([preFilterTokens({}), preFilterTokens({}, "cache_aware")]).toEqual([10_000, 0]);
  });

  it("says an unpriced model is unpriced, not below a threshold, however small its output", () => {
    const d = decideOutcome("cache_aware", { ...D1, output_tokens: 50 }, { status: "unpriced" });
    expect(d).toMatchObject({
      fire: false,
      reason_code: "unpriced",
      reason: "no MODEL_PRICING row for 'claude-opus-4-6'",
    });
  });
});

describe("the recall hop, priced as it is billed", () => {
  const R1: CacheAwareInputs = {
    ...D1,
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.3,
    context_tokens: 60_000,
    offload_at: "retroactive",
    suffix_tokens: 30_000,
  };

  it("appended (the default), reads the whole history before the recall from the cache (R1: recall 0.036525, net −0.10767)", () => {
    const d = evaluateCacheAwareGate(R1, OPUS);
    // 0.3 · (2,000 · 6.25e-6 + 500 · 25e-6 + (60,000 + 30,000) · 1.075e-6)
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.036525, 12);
    expect(d.net_saving_usd).toBeCloseTo(-0.10767, 12);
  });

  it("in place, reads the history before the stub and writes the 30,000 tokens after it (R1: recall 0.0831, net −0.154245)", () => {
    const d = evaluateCacheAwareGate({ ...R1, recall_placement: "in_place" }, OPUS);
    // 0.3 · (2,000 · 6.25e-6 + 500 · 25e-6 + 60,000 · 1.075e-6 + 30,000 · 6.25e-6)
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.0831, 12);
    expect(d.net_saving_usd).toBeCloseTo(-0.154245, 12);
  });

  it("differs between the placements by exactly p · A · (write − m(T)), and not at all on entry", () => {
    for (const a of [0, 10_000, 30_000]) {
      const hop = (placement: "append" | "in_place") =>
        evaluateCacheAwareGate({ ...R1, suffix_tokens: a, recall_placement: placement }, OPUS)
          .expected_recall_hop_cost_usd;
      expect(hop("in_place") - hop("append")).toBeCloseTo(0.3 * a * (6.25e-6 - 1.075e-6), 12);
    }
    const entry = (placement: "append" | "in_place") =>
      evaluateCacheAwareGate({ ...R1, offload_at: "entry", suffix_tokens: 0, recall_placement: placement }, OPUS);
    expect(entry("append")).toEqual(entry("in_place"));
  });

  it("is today's hop on entry: nothing is cached after an entry stub (bit for bit: retroactive-ttl-ranges-properties)", () => {
    const entry = evaluateCacheAwareGate({ ...R1, offload_at: "entry" }, OPUS);
    expect(entry.expected_recall_hop_cost_usd).toBeCloseTo(0.3 * (0.025 + 60_000 * 1.075e-6), 15);
    expect(entry.suffix_rewrite_cost_usd).toBe(0);
  });

  it("costs more the more is cached after the stub when restored in place: a longer suffix makes every hop dearer", () => {
    const hops = [0, 10_000, 30_000].map(
      (a) =>
        evaluateCacheAwareGate({ ...R1, suffix_tokens: a, recall_placement: "in_place" }, OPUS)
          .expected_recall_hop_cost_usd,
    );
    expect(hops[1]! - hops[0]!).toBeCloseTo(0.3 * 10_000 * 6.25e-6, 12);
    expect(hops[2]! - hops[0]!).toBeCloseTo(0.3 * 30_000 * 6.25e-6, 12);
  });
});
