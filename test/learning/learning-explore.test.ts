import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { exploreDraws, sampleHorizon, sampleUnit } from "../../src/learning/explore";
import { unitRange } from "../../src/learning/ranges";
import { isExplore } from "../../src/ledger";
import { forgetLearned } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";
import { adminCall } from "../support/admin-helpers";
import { OPUS } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// Exploration: a share of each tool's sessions decides on draws from p's and h's posteriors (Thompson sampling).
const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: "read_file" };
const FRACTION = 0.3;
const sessions = (explore: boolean, n: number) => {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++)
    if (isExplore("default", `x-${i}`, GATE.tool_name, FRACTION) === explore) out.push(`x-${i}`);
  return out;
};

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  forgetPricing();
  forgetLearned();
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await putConfig({ learning_explore_fraction: FRACTION });
});
afterEach(() => vi.restoreAllMocks());

describe("exploration", () => {
  it("changes no answer for a tenant with no outcomes, however large its share", async () => {
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});
    for (const id of sessions(true, 5)) {
      const answer = await (await postJson("/v1/gate", { ...GATE, session_id: id })).json<any>();
      expect(answer.priors.recall_probability).toEqual({ value: 0.25, source: "config", n: 0 });
      expect(answer.inputs.recall_probability).toBe(0.25);
    }
  });

  it("decides an exploring session on draws from p's and h's posteriors, says so in the answer and the data point, and leaves the others alone", async () => {
    const items = [];
    for (const id of sessions(false, 20)) {
      const decided = await (await callWorker("/v1/gate", { json: { ...GATE, session_id: id } })).json<any>();
      // turns_after 6, 7, 8, …: sample sd √0.68157894… (statistics.variance in python)
      items.push({
        decision_id: decided.decision_id,
        turns_after: 6 + (items.length % 3),
        recalled: items.length % 2 === 0,
      });
    }
    expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});

    const usual = await (await postJson("/v1/gate", { ...GATE, session_id: sessions(false, 21)[20] })).json<any>();
    expect(usual.priors.recall_probability.source).toBe("learned");
    const p = usual.priors.recall_probability;
    const h = usual.priors.horizon;
    // Every level holds the same 20 outcomes, so the concentration is w + n once.
    const range = unitRange({ value: p.value, n: p.n, concentration: 10 + p.n }, 0.9);

    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const session = sessions(true, 1)[0]!;
    const draws = exploreDraws("default", session, GATE.tool_name);
    const drawn = sampleUnit({ value: p.value, concentration: 10 + p.n }, draws.p);
    expect(drawn).not.toBe(p.value);
    expect(drawn).toBeGreaterThan(range[0] - 0.2);
    expect(drawn).toBeLessThan(range[1] + 0.2);
    const explored = await (await postJson("/v1/gate", { ...GATE, session_id: session })).json<any>();
    expect(explored.priors.recall_probability).toEqual({ value: drawn, source: "explore", n: p.n });
    expect(explored.inputs.recall_probability).toBe(drawn);
    expect(explored.priors.horizon.source).toBe("explore");
    expect(explored.priors.horizon.value).toBeCloseTo(
      sampleHorizon({ value: h.value, concentration: 10 + h.n, sd: Math.sqrt(0.6815789473684211) }, draws.h),
      12,
    );
    expect(explored.inputs.horizon).toBe(Math.floor(explored.priors.horizon.value + 0.5));
    expect(write.mock.calls[0]?.[0]?.blobs?.[15]).toBe("explore");
    // The very decision a caller sending that p and h would get.
    const sent = await (
      await postJson("/v1/gate", { ...GATE, recall_probability: drawn, horizon: explored.inputs.horizon })
    ).json<any>();
    expect(explored.net_saving_usd).toBe(sent.net_saving_usd);
    expect(explored.fire).toBe(sent.fire);

    // A p the caller sends is never explored.
    const given = await (
      await postJson("/v1/gate", { ...GATE, recall_probability: 0.5, session_id: sessions(true, 1)[0] })
    ).json<any>();
    expect(given.priors.recall_probability).toEqual({ value: 0.5, source: "request", n: 0 });
  });

  it("draws p across exploring sessions as Beta(m·c, (1 − m)·c) would: on both sides of a break-even just below the mean", () => {
    // m 0.575, c 50: a p learned a little above a break-even of 0.55. The lower-bound rule never priced
    // below 0.55 once its bound passed it; draws fall below it as often as the posterior says.
    const field = { value: 0.575, concentration: 50, sd: null };
    const drawn = sessions(true, 2_000).map((id) => sampleUnit(field, exploreDraws("default", id, GATE.tool_name).p));
    const mean = drawn.reduce((a, b) => a + b, 0) / drawn.length;
    const variance = drawn.reduce((a, b) => a + (b - mean) ** 2, 0) / (drawn.length - 1);
    // Beta's mean m and variance m(1 − m) ÷ (c + 1) = 0.0047917; 2,000 draws hold them to a few standard errors.
    expect(Math.abs(mean - 0.575)).toBeLessThan(4 * Math.sqrt(0.0047917 / 2_000));
    expect(Math.abs(variance / 0.0047917 - 1)).toBeLessThan(0.15);
    // P(p < 0.55) under Beta(28.75, 21.25) is 0.3562 (scipy.stats.beta.cdf; scripts/reference/pool.py).
    const below = drawn.filter((x) => x < 0.55).length / drawn.length;
    expect(Math.abs(below - 0.3562)).toBeLessThan(4 * Math.sqrt((0.3562 * 0.6438) / 2_000));
  });

  it.each([0.6, -0.1, "x"])("refuses learning_explore_fraction = %j with a 400 naming it", async (value) => {
    const res = await adminCall("PUT", "/v1/admin/config", { learning_explore_fraction: value });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues.map((i: { path: string }) => i.path)).toContain(
      "learning_explore_fraction",
    );
  });
});
