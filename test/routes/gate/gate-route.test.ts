import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EXAMPLE_A, OPUS, postGate, putAlias, putGateConfig, putRow, resetState } from "../../support/helpers";

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("POST /v1/gate", () => {
  it("answers worked example A as the reference does, priced from KV", async () => {
    const res = await postGate(EXAMPLE_A);
    expect(res.status).toBe(200);
    const body = await res.json<Record<string, unknown>>();
    expect(body).toMatchObject({
      fire: true,
      net_saving_usd: 0.38925000000000004,
      reprefill_saving_usd: 0.4,
      stub_carry_cost_usd: 0.004,
      expected_recall_hop_cost_usd: 0.00675,
      reason: "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
      reason_code: "net_positive",
      priced_as: { model: "claude-opus-4-6", input: 5, output: 25 },
      stale_pricing: null,
    });
  });

  it("prices an alias with its canonical row and names that row", async () => {
    await putRow("claude-opus-4-5", { ...OPUS, aliases: ["claude-opus-4-5-20251101"] });
    await putAlias("claude-opus-4-5-20251101", "claude-opus-4-5");
    const body = await (await postGate({ ...EXAMPLE_A, model_name: "claude-opus-4-5-20251101" })).json<any>();
    expect(body.reason_code).toBe("net_positive");
    expect(body.priced_as.model).toBe("claude-opus-4-5");
    expect(body.priced_as).not.toHaveProperty("aliases");
    expect(body.reason).toContain("model=claude-opus-4-5-20251101");
  });

  it("never fires for an unpriced model and says so in the reference's words", async () => {
    const body = await (await postGate({ ...EXAMPLE_A, model_name: "mystery-model-9" })).json<any>();
    expect(body).toMatchObject({
      fire: false,
      reason_code: "unpriced",
      priced_as: null,
      reason: "no MODEL_PRICING row for 'mystery-model-9'",
      net_saving_usd: 0,
    });
  });

  it("answers below_threshold without reading KV", async () => {
    const get = vi.spyOn(env.PRICING, "get");
    const body = await (await postGate({ ...EXAMPLE_A, output_tokens: 600 })).json<any>();
    expect(body.reason_code).toBe("below_threshold");
    expect(body.reason).toBe("below large_offload_threshold (600 < 10000 tokens)");
    expect(get.mock.calls.map((args) => args[0])).not.toContain("pricing:claude-opus-4-6");
  });

  it("takes output_chars as chars / 4", async () => {
    const body = await (await postGate({ model_name: "claude-opus-4-6", output_chars: 80_000 })).json<any>();
    expect(body.inputs.output_tokens).toBe(20_000);
    expect(body.inputs.output_chars).toBe(80_000);
  });

  it("fills omitted fields from config:gate, then from the defaults", async () => {
    await putGateConfig({ expected_conversation_depth: 7, stub_tokens: 300 });
    const body = await (await postGate({ model_name: "claude-opus-4-6", output_tokens: 20_000 })).json<any>();
    expect(body.inputs).toEqual({
      model_name: "claude-opus-4-6",
      output_tokens: 20_000,
      horizon: 7,
      recall_probability: 0.25,
      large_offload_threshold_tokens: 10_000,
      stub_tokens: 300,
      recall_input_tokens: 2_000,
      recall_output_tokens: 500,
    });
  });
});
