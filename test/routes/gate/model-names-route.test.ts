import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WORKED_EXAMPLE_P1 } from "../../../src/routes/plan/schema";
import { EXAMPLE_A, OPUS, postGate, postJson, putAlias, putRow, resetState } from "../../support/helpers";
import { putPricing, usePricingAdmin } from "../../support/admin-pricing";

type Answer = Record<string, any>;
const decide = async (model_name: string) => (await postGate({ ...EXAMPLE_A, model_name })).json<Answer>();

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", { ...OPUS, aliases: ["claude-opus-4-6-20260205"] });
  await putAlias("claude-opus-4-6-20260205", "claude-opus-4-6");
  await putRow("deepseek-chat", { input: 0.28, output: 0.42, cache_read: 0.028 });
});
afterEach(() => vi.restoreAllMocks());

describe("a model name as LiteLLM and OpenRouter spell it, through POST /v1/gate", () => {
  it("prices an exact name as it always did, and says it was found as sent", async () => {
    const exact = await decide("claude-opus-4-6");
    expect(exact.fire).toBe(true);
    expect(exact.net_saving_usd).toBe(0.38925000000000004);
    expect(exact.reason).toBe(
      "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
    );
    expect(exact.priced_as).toMatchObject({ model: "claude-opus-4-6", resolved_from: "exact" });
  });

  it.each([
    ["openrouter/anthropic/claude-opus-4-6", "claude-opus-4-6", "routing_prefix"],
    ["anthropic/claude-opus-4-6-20260205", "claude-opus-4-6", "routing_prefix"],
    ["claude-opus-4-6@20260205", "claude-opus-4-6", "dated_suffix"],
    ["claude-opus-4-6-20260205", "claude-opus-4-6", "alias"],
    ["deepseek/deepseek-chat", "deepseek-chat", "routing_prefix"],
  ])("prices %s from %s's row (%s), its reason naming the model as sent", async (sent, model, from) => {
    const answer = await decide(sent);
    expect(answer.reason_code).not.toBe("unpriced");
    expect(answer.priced_as).toMatchObject({ model, resolved_from: from });
    expect(answer.reason.endsWith(`model=${sent}`)).toBe(true);
    expect(answer.inputs.model_name).toBe(sent);
  });

  it("gives a resolved name the same decision as its row's own name", async () => {
    const [own, routed] = [await decide("claude-opus-4-6"), await decide("openrouter/anthropic/claude-opus-4-6")];
    for (const field of ["fire", "net_saving_usd", "reprefill_saving_usd", "stub_carry_cost_usd"])
      expect(routed[field]).toBe(own[field]);
  });

  it("reads a resolved name's keys once, then serves it from the isolate", async () => {
    await decide("openrouter/anthropic/claude-opus-4-6");
    const get = vi.spyOn(env.PRICING, "get");
    await decide("openrouter/anthropic/claude-opus-4-6");
    expect(get.mock.calls.filter(([key]) => String(key).startsWith("pricing:"))).toHaveLength(0);
  });

  it("refuses a name two rows could price with a 400 naming model_name and both rows", async () => {
    await putRow("openai/gpt-4o", { input: 2.5, output: 10 });
    await putRow("gpt-4o", { input: 2.5, output: 10 });
    const res = await postGate({ ...EXAMPLE_A, model_name: "openrouter/openai/gpt-4o" });
    expect(res.status).toBe(400);
    const body = await res.json<Answer>();
    expect(body.error.issues).toEqual([
      {
        path: "model_name",
        message: "is ambiguous: openrouter/openai/gpt-4o could name gpt-4o or openai/gpt-4o; send one of them",
      },
    ]);
  });

  it("refuses an ambiguous name as its batch item's error, the other items decided", async () => {
    await putRow("openai/gpt-4o", { input: 2.5, output: 10 });
    await putRow("gpt-4o", { input: 2.5, output: 10 });
    const res = await postJson("/v1/gate/batch", {
      items: [EXAMPLE_A, { ...EXAMPLE_A, model_name: "openrouter/openai/gpt-4o" }],
    });
    const { decisions } = await res.json<Answer>();
    expect(decisions[0].fire).toBe(true);
    expect(decisions[1].error.issues[0].path).toBe("items.1.model_name");
  });

  it("refuses an ambiguous name in a plan too, naming model_name", async () => {
    await putRow("openai/claude-opus-4-6", OPUS);
    const res = await postJson("/v1/plan", { ...WORKED_EXAMPLE_P1, model_name: "openrouter/openai/claude-opus-4-6" });
    expect(res.status).toBe(400);
    expect((await res.json<Answer>()).error.issues[0].path).toBe("model_name");
  });

  it("prices a plan sent under a routed name from the right row, and says so", async () => {
    const res = await postJson("/v1/plan", { ...WORKED_EXAMPLE_P1, model_name: "anthropic/claude-opus-4-6" });
    expect(res.status).toBe(200);
    expect((await res.json<Answer>()).priced_as).toMatchObject({
      model: "claude-opus-4-6",
      resolved_from: "routing_prefix",
    });
  });
});

describe("a write this isolate takes", () => {
  usePricingAdmin();

  it("makes a routed name that found nothing resolve at once, without waiting for the TTL", async () => {
    expect((await decide("groq/llama-4-scout")).reason_code).toBe("unpriced");
    expect((await putPricing("llama-4-scout", { input: 0.11, output: 0.34 })).status).toBe(200);
    expect((await decide("groq/llama-4-scout")).priced_as).toMatchObject({
      model: "llama-4-scout",
      resolved_from: "routing_prefix",
    });
  });
});
