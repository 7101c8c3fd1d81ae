/**
 * @module test/economic-prefilter-route
 *
 * The economic pre-filter over HTTP: config:gate's large_offload_threshold_tokens
 * is null by default (the seed's 10,000, no floor in cache_aware and the plan),
 * and a floor ops set applies in both modes.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { OPUS, postGate, postJson, putGateConfig, putRow, resetState } from "../../support/helpers";

const MEDIUM = {
  model_name: "claude-opus-4-6",
  output_tokens: 4_000,
  horizon: 20,
  recall_probability: 0.25,
  context_tokens: 100_000,
  dry_run: true,
};
const HISTORY = {
  model_name: "claude-opus-4-6",
  horizon: 30,
  dry_run: true,
  segments: [
    { tokens: 20_000 },
    { id: "a", tokens: 6_000 },
    { tokens: 500 },
    { id: "b", tokens: 4_500 },
    { tokens: 300 },
  ],
};

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("the pre-filter a cache_aware request gets by default", () => {
  it("is the break-even size: a 4,000-token output is priced and fires, and the answer echoes a floor of 0", async () => {
    const body = await (await postGate({ ...MEDIUM, pricing_mode: "cache_aware" })).json<any>();
    expect(body).toMatchObject({ fire: true, reason_code: "net_positive", break_even_output_tokens: 1_442 });
    expect(body.inputs.large_offload_threshold_tokens).toBe(0);
  });

  it("stays the reference's 10,000 tokens in seed mode", async () => {
    const { context_tokens: _, ...seed } = MEDIUM;
    const body = await (await postGate(seed)).json<any>();
    expect(body).toMatchObject({
      fire: false,
      reason_code: "below_threshold",
      reason: "below large_offload_threshold (4000 < 10000 tokens)",
    });
  });

  it("is a floor ops may set in config:gate, in both modes", async () => {
    await putGateConfig({ large_offload_threshold_tokens: 5_000 });
    const body = await (await postGate({ ...MEDIUM, pricing_mode: "cache_aware" })).json<any>();
    expect(body).toMatchObject({
      fire: false,
      reason_code: "below_threshold",
      reason: "below large_offload_threshold (4000 < 5000 tokens)",
    });
    const plan = await (await postJson("/v1/plan", HISTORY)).json<any>();
    expect(plan.stub).toEqual(["a"]);
    expect(plan.candidates.find((c: any) => c.id === "b").alone_net_saving_usd).toBeNull();
  });

  it("lets the plan weigh medium outputs on their economics when no floor is set", async () => {
    const plan = await (await postJson("/v1/plan", HISTORY)).json<any>();
    expect(plan.inputs.large_offload_threshold_tokens).toBe(0);
    expect(plan.stub).toEqual(["a", "b"]);
    expect(plan.reason_code).toBe("plan_positive");
  });
});
