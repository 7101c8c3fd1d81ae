import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { LEARNED_RANGES } from "../../src/learning/pool";
import { addSums, emptySums, learnPriors, type LevelSums } from "../../src/learning/pool";
import { horizonRange } from "../../src/learning/ranges";
import { MAX_HORIZON } from "../../src/storage/rules";
import { learningKey } from "../../src/storage/rules/keys";
import { forgetLearned } from "../../src/storage/learning";
import { parseLearned } from "../../src/storage/schemas/learning-schema";
import { sumsInconsistency } from "../../src/storage/rules/learning-sums";
import { OPUS } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";
import { runs } from "../support/runs";

const ROOT = { horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 };
const SUMS: LevelSums = { p_n: 2, p_r: 1, h_n: 2, h_sum: 8, h_sumsq: 34, q_n: 2, q_cached: 3, q_turns: 6 };
const valueWith = (tenant_sums: LevelSums, tool: LevelSums = SUMS) =>
  JSON.stringify({
    version: 1,
    tenant: "default",
    computed_at: 1,
    window: { from: 0, to: 1 },
    tenant_sums,
    tools: { read_file: { sums: tool, models: { "claude-opus-4-6": tool } } },
    breakers: {},
  });

/** The sums one shard's LEARNING_SUMS would give for these outcomes (the ledger's LEARNING_SUMS). */
function sumsOf(
  outcomes: ReadonlyArray<{ fire: boolean; recalled: boolean; turns: number; cached: number | null }>,
): LevelSums {
  const s = emptySums();
  for (const o of outcomes) {
    s.h_n += 1;
    s.h_sum += o.turns;
    s.h_sumsq += o.turns * o.turns;
    if (o.fire) s.p_n += 1;
    if (o.fire && o.recalled) s.p_r += 1;
    if (o.cached !== null) {
      s.q_n += 1;
      s.q_cached += o.cached;
      s.q_turns += o.turns;
    }
  }
  return s;
}
const outcome = fc
  .record({
    fire: fc.boolean(),
    recalled: fc.boolean(),
    turns: fc.integer({ min: 0, max: MAX_HORIZON }),
    cachedShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
  })
  .map(({ cachedShare, ...o }) => ({ ...o, cached: cachedShare === null ? null : Math.floor(cachedShare * o.turns) }));

describe("a stored learned value's sums", () => {
  it.each([
    ["p_r exceeds p_n", { p_r: 3 }],
    ["q_cached exceeds q_turns", { q_cached: 7 }],
    ["p_n or q_n exceeds h_n", { p_n: 3, p_r: 0 }],
    ["p_n or q_n exceeds h_n", { q_n: 3 }],
    [`h_sum exceeds h_n × ${MAX_HORIZON}`, { h_sum: 1e300, h_sumsq: 1e300 }],
    ["h_sumsq is inconsistent with h_sum", { h_sumsq: 7 }],
    ["h_sumsq is inconsistent with h_sum", { h_sumsq: 8 * MAX_HORIZON + 1 }],
    ["q_turns exceeds h_sum", { q_turns: 9 }],
  ])("are refused when %s, at every level, naming the key", (reason, change) => {
    const bad = { ...SUMS, ...change };
    for (const text of [valueWith(bad), valueWith(SUMS, bad)]) {
      const { value, problem } = parseLearned("default", text);
      expect(value).toBeNull();
      expect(problem).toContain("learning:default is invalid");
      expect(problem).toContain(reason);
    }
  });

  it("are accepted whenever outcomes a request may send made them, one shard or many added", () => {
    fc.assert(
      fc.property(fc.array(fc.array(outcome, { maxLength: 20 }), { maxLength: 4 }), (shards) => {
        const merged = shards.map(sumsOf).reduce(addSums, emptySums());
        expect(sumsInconsistency(merged)).toBeNull();
        expect(parseLearned("default", valueWith(merged, merged)).problem).toBeNull();
      }),
      { numRuns: runs(300) },
    );
  });
});

describe("every pooled prior", () => {
  const anySums = fc.record({
    p_n: fc.double({ min: 0, max: 1e300, noNaN: true }),
    p_r: fc.double({ min: 0, max: 1e300, noNaN: true }),
    h_n: fc.double({ min: 0, max: 1e300, noNaN: true }),
    h_sum: fc.double({ min: 0, max: 1e300, noNaN: true }),
    h_sumsq: fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true }),
    q_n: fc.double({ min: 0, max: 1e300, noNaN: true }),
    q_cached: fc.double({ min: 0, max: 1e300, noNaN: true }),
    q_turns: fc.double({ min: 0, max: 1e300, noNaN: true }),
  });

  it("stays in the range a request may send, whatever the sums, and so does the horizon's credible range", () => {
    fc.assert(
      fc.property(fc.array(anySums, { minLength: 1, maxLength: 3 }), (levels) => {
        const pooled = learnPriors(ROOT, levels, 10);
        for (const field of ["horizon", "recall_probability", "cache_hit_rate"] as const) {
          const [lo, hi] = LEARNED_RANGES[field];
          expect(pooled[field].value).toBeGreaterThanOrEqual(lo);
          expect(pooled[field].value).toBeLessThanOrEqual(hi);
        }
        const range = horizonRange(pooled.horizon, 0.9);
        if (range !== null) expect(range[1]).toBeLessThanOrEqual(MAX_HORIZON);
      }),
      { numRuns: runs(300) },
    );
  });

  it("is the very value pooling gives when it is in range (bit for bit)", () => {
    const pooled = learnPriors(ROOT, [SUMS], 10);
    expect(pooled.horizon.value).toBe((10 * 4 + 8) / 12);
    expect(pooled.recall_probability.value).toBe((10 * 0.25 + 1) / 12);
  });
});

describe("the gate, given a learned value no outcomes could have made", () => {
  beforeEach(async () => {
    await reset();
    await resetState();
    await putRow("claude-opus-4-6", OPUS);
  });

  it("decides on the config's priors, and /v1/learning says why", async () => {
    const body = { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: "read_file" };
    const reference = await (await postJson("/v1/gate", body)).json<any>();
    await env.PRICING.put(learningKey("default"), valueWith({ ...SUMS, h_n: 3, h_sum: 2.7e299, h_sumsq: 2.7e299 }));
    forgetLearned();
    const answer = await (await postJson("/v1/gate", body)).json<any>();
    expect(answer.priors.horizon).toEqual({ value: 4, source: "config", n: 0 });
    expect(answer.priors.recall_probability).toEqual({ value: 0.25, source: "config", n: 0 });
    expect(answer.fire).toBe(reference.fire);
    expect(answer.net_saving_usd).toBe(reference.net_saving_usd);
    const view = await (await callWorker("/v1/learning")).json<any>();
    expect(view.problem).toMatch(/learning:default is invalid: .*h_sum exceeds h_n × 1000000/);
  });
});
