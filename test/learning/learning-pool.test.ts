import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { learnPriors, poolLevel, rootPooled, type LevelSums } from "../../src/learning/pool";
import { betaQuantile, horizonRange, unitRange } from "../../src/learning/ranges";
import { applyLearned } from "../../src/routes/gate/direct/priors";
import { DEFAULT_GATE_CONFIG } from "../../src/storage/rules";
import type { LearnedValue } from "../../src/storage/learning";
import { runs } from "../support/runs";

// docs/design/learning.md §2.3's worked examples (w = 10; config p 0.25, h 4, q 0.9).
const ROOT = { horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 };
const none: LevelSums = { p_n: 0, p_r: 0, h_n: 0, h_sum: 0, h_sumsq: 0, q_n: 0, q_cached: 0, q_turns: 0 };
/** Sums for n outcomes of mean m and sample sd s: Σx = n·m, Σx² = s²(n − 1) + n·m². */
const horizons = (n: number, m: number, s: number) => ({ h_n: n, h_sum: n * m, h_sumsq: s * s * (n - 1) + n * m * m });
const TENANT: LevelSums = {
  ...none,
  p_n: 200,
  p_r: 60,
  ...horizons(500, 5, 2),
  q_n: 300,
  q_cached: 2_700,
  q_turns: 3_600,
};
const TOOL: LevelSums = { ...none, p_n: 40, p_r: 30, ...horizons(60, 7, 3), q_n: 40, q_cached: 300, q_turns: 480 };
const TOOL_MODEL: LevelSums = { ...none, p_n: 12, p_r: 10 };
const values = (levels: Array<LevelSums | undefined>) => {
  const pooled = learnPriors(ROOT, levels, 10);
  return [pooled.recall_probability.value, pooled.horizon.value, pooled.cache_hit_rate.value];
};

describe("the learner's worked examples", () => {
  it("L0: with no outcomes every value is the config's", () => {
    expect(values([])).toEqual([0.25, 4, 0.9]);
    expect(values([none, none, none])).toEqual([0.25, 4, 0.9]);
  });

  it("L1–L3 match the note to the last digit", () => {
    expect(values([TENANT])).toEqual([0.2976190476190476, 4.980392156862745, 0.7548387096774194]);
    expect(values([TENANT, TOOL])).toEqual([0.6595238095238095, 6.711484593837535, 0.6509677419354838]);
    expect(values([TENANT, TOOL, TOOL_MODEL])).toEqual([0.7543290043290043, 6.711484593837535, 0.6509677419354838]);
  });

  it("passes a level without observations through as the very same value", () => {
    const parent = learnPriors(ROOT, [TENANT], 10);
    const child = poolLevel(parent, none, 10);
    expect(child.recall_probability).toBe(parent.recall_probability);
    expect(child.horizon).toBe(parent.horizon);
    expect(child.cache_hit_rate).toBe(parent.cache_hit_rate);
  });

  it("gives q no observation when its outcomes ran no turns", () => {
    const pooled = learnPriors(ROOT, [{ ...none, q_n: 5, q_turns: 0 }], 10);
    expect(pooled.cache_hit_rate).toEqual(rootPooled(ROOT, 10).cache_hit_rate);
  });
});

describe("credible ranges", () => {
  const l3 = learnPriors(ROOT, [TENANT, TOOL, TOOL_MODEL], 10);

  // Reference values from scipy.stats (beta.ppf, norm.ppf), computed independently.
  it("match L3's ranges at 0.9 to six decimals", () => {
    expect(l3.recall_probability.concentration).toBe(22);
    expect(l3.cache_hit_rate.concentration).toBe(50);
    const p = unitRange(l3.recall_probability, 0.9);
    const q = unitRange(l3.cache_hit_rate, 0.9);
    const h = horizonRange(l3.horizon, 0.9)!;
    expect(p[0]).toBeCloseTo(0.59402974, 6);
    expect(p[1]).toBeCloseTo(0.88783386, 6);
    expect(q[0]).toBeCloseTo(0.53767598, 6);
    expect(q[1]).toBeCloseTo(0.75732373, 6);
    expect(h[0]).toBeCloseTo(6.121691759907582, 6);
    expect(h[1]).toBeCloseTo(7.301277427767488, 6);
    expect(p.map((x) => x.toFixed(6))).toEqual(["0.594030", "0.887834"]);
    expect(q.map((x) => x.toFixed(6))).toEqual(["0.537676", "0.757324"]);
    expect(h.map((x) => x.toFixed(6))).toEqual(["6.121692", "7.301277"]);
  });

  it("agree with scipy's beta quantiles elsewhere", () => {
    // scipy.stats.beta.ppf(0.025, 2.5, 7.5), .ppf(0.975, 30, 3)
    expect(betaQuantile(0.025, 2.5, 7.5)).toBeCloseTo(0.04930192297659401, 9);
    expect(betaQuantile(0.975, 30, 3)).toBeCloseTo(0.9802328198267152, 9);
  });

  it("give the horizon no range below two observations, and clip it at 0", () => {
    expect(horizonRange({ value: 3, n: 1, concentration: 11, sd: null }, 0.9)).toBeNull();
    expect(horizonRange({ value: 0.1, n: 5, concentration: 15, sd: 10 }, 0.9)![0]).toBe(0);
  });
});

const sums = fc
  .record({
    p_n: fc.nat({ max: 10_000 }),
    h_n: fc.nat({ max: 10_000 }),
    q_n: fc.nat({ max: 10_000 }),
    turns: fc.nat({ max: 1_000 }),
    recalled: fc.double({ min: 0, max: 1, noNaN: true }),
    cached: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ p_n, h_n, q_n, turns, recalled, cached }): LevelSums => {
    const q_turns = q_n * turns;
    return {
      p_n,
      p_r: Math.floor(p_n * recalled),
      ...horizons(h_n, turns, turns / 3),
      q_n,
      q_cached: Math.floor(q_turns * cached),
      q_turns,
    };
  });

describe("a learned value, whatever was observed", () => {
  it("keeps p and q in [0, 1] and h ≥ 0, ranges included", () => {
    fc.assert(
      fc.property(
        fc.array(sums, { minLength: 1, maxLength: 3 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.nat({ max: 1_000 }),
        fc.double({ min: 0.001, max: 1_000, noNaN: true }),
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        (levels, p, q, h, weight, credible) => {
          const [tenant, tool, model] = levels;
          const value: LearnedValue = {
            version: 1,
            tenant: "t",
            computed_at: 0,
            window: { from: 0, to: 1 },
            tenant_sums: tenant!,
            tools: tool === undefined ? {} : { x: { sums: tool, models: model === undefined ? {} : { m: model } } },
            breakers: {},
          };
          const config = Object.freeze({
            ...DEFAULT_GATE_CONFIG,
            p_recall: p,
            cache_hit_rate: q,
            expected_conversation_depth: h,
            learning_prior_weight: weight,
            learning_credible: credible,
          });
          const { inputs } = applyLearned(
            { model_name: "m", output_tokens: 1, tool_name: "x" },
            {
              model_name: "m",
              output_tokens: 1,
              horizon: h,
              recall_probability: p,
              cache_hit_rate: q,
              large_offload_threshold_tokens: 0,
              stub_tokens: 0,
              recall_input_tokens: 0,
              recall_output_tokens: 0,
            },
            "cache_aware",
            value,
            config,
            "m",
          );
          for (const x of [
            inputs.recall_probability,
            inputs.cache_hit_rate!,
            ...(inputs.recall_probability_range ?? []),
            ...(inputs.cache_hit_rate_range ?? []),
          ]) {
            expect(x).toBeGreaterThanOrEqual(0);
            expect(x).toBeLessThanOrEqual(1);
          }
          for (const x of [inputs.horizon, ...(inputs.horizon_range ?? [])]) expect(x).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: runs(500) },
    );
  });
});
