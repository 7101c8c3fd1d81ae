import { describe, expect, it } from "vitest";
import { chainPriors, levelsOf } from "../../src/learning/chain";
import type { LevelSums } from "../../src/learning/pool";
import type { LearnedValue } from "../../src/storage/learning";

// The whole pooling chain against an independent computation in exact fractions,
// scripts/reference/pool.py (run it to reproduce these numbers): each outcome counts once
// (docs/design/learning.md §2.4), a strict subset pools on its parent.
const ROOT = { horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 };
const sums = (s: Partial<LevelSums>): LevelSums => {
  const full = { p_n: 0, p_r: 0, h_n: 0, h_sum: 0, h_sumsq: 0, q_n: 0, q_cached: 0, q_turns: 0, ...s };
  return { ...full, h_sumsq: full.h_n === 0 ? 0 : (full.h_sum * full.h_sum) / full.h_n + full.h_n };
};
const band = (p_n: number, p_r: number) => ({ p_n, p_r });
const value = (v: Partial<LearnedValue>): LearnedValue => ({
  version: 1,
  tenant: "t",
  computed_at: 1,
  window: { from: 0, to: 1 },
  tenant_sums: sums({}),
  tools: {},
  breakers: {},
  ...v,
});
type Expected = [p: number, pn: number, h: number, hn: number, q: number, qn: number];
const check = (v: LearnedValue, tool: string, model: string, b: "lt2k" | "2k-10k" | "ge10k", e: Expected) => {
  const pooled = chainPriors(ROOT, levelsOf(v, tool, model, b), 10);
  expect(pooled.recall_probability.value).toBeCloseTo(e[0], 14);
  expect(pooled.recall_probability.n).toBe(e[1]);
  expect(pooled.horizon.value).toBeCloseTo(e[2], 14);
  expect(pooled.horizon.n).toBe(e[3]);
  expect(pooled.cache_hit_rate.value).toBeCloseTo(e[4], 14);
  expect(pooled.cache_hit_rate.n).toBe(e[5]);
};

describe("the pooling chain, each outcome counted once", () => {
  it("A: 32 recalls in 40 of one tool, model and band give (2.5 + 32) ÷ 50 = 0.69 at every level", () => {
    const a = sums({ p_n: 40, p_r: 32, h_n: 40, h_sum: 200, q_n: 20, q_cached: 60, q_turns: 80 });
    const v = value({
      tenant_sums: a,
      tools: { web_fetch: { sums: a, models: { m: a }, bands: { ge10k: band(40, 32) } } },
    });
    check(v, "web_fetch", "m", "ge10k", [0.69, 40, 4.8, 40, 0.8, 20]);
    // The tool's own levels and a band with nothing of its own pass the same 0.69 through.
    check(v, "web_fetch", "m", "lt2k", [0.69, 40, 4.8, 40, 0.8, 20]);
    check(v, "web_fetch", "other-model", "ge10k", [0.69, 40, 4.8, 40, 0.8, 20]);
  });

  it("B: two models and two bands, each a strict subset of the tool, pool on their parents", () => {
    const tool = sums({ p_n: 40, p_r: 26, h_n: 44, h_sum: 264, q_n: 10, q_cached: 20, q_turns: 40 });
    const opus = sums({ p_n: 30, p_r: 24, h_n: 33, h_sum: 231, q_n: 10, q_cached: 20, q_turns: 40 });
    const sonnet = sums({ p_n: 10, p_r: 2, h_n: 11, h_sum: 33 });
    const tenant = sums({ p_n: 90, p_r: 30, h_n: 94, h_sum: 364, q_n: 10, q_cached: 20, q_turns: 40 });
    const v = value({
      tenant_sums: tenant,
      tools: { grep: { sums: tool, models: { opus, sonnet }, bands: { ge10k: band(25, 22), lt2k: band(15, 4) } } },
    });
    check(v, "grep", "opus", "ge10k", [0.8407142857142857, 25, 6.676340025177234, 33, 0.7, 10]);
    check(v, "grep", "opus", "lt2k", [0.457, 15, 6.676340025177234, 33, 0.7, 10]);
    check(v, "grep", "opus", "2k-10k", [0.7425, 30, 6.676340025177234, 33, 0.7, 10]);
  });

  it("C: a replay band holding all of its replay tool adds nothing, as the tenant's own levels", () => {
    const tool = sums({ p_n: 30, p_r: 13, h_n: 30, h_sum: 150 });
    const replay = sums({ p_n: 60, p_r: 30, h_n: 60, h_sum: 180 });
    const v = value({
      tenant_sums: tool,
      tools: { read_file: { sums: tool, models: { m: tool }, bands: { ge10k: band(20, 12), lt2k: band(10, 1) } } },
      replay: { read_file: { sums: replay, bands: { ge10k: replay } } },
    });
    check(v, "read_file", "m", "ge10k", [0.5470238095238096, 20, 4.535714285714286, 30, 0.9, 0]);
    check(v, "read_file", "m", "lt2k", [0.27053571428571427, 10, 4.535714285714286, 30, 0.9, 0]);
  });
});
