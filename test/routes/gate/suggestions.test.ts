import { beforeEach, describe, expect, it } from "vitest";
import { closestNames } from "../../../src/gate";
import { OPUS, postGate, postJson, putRow, resetState } from "../../support/helpers";

const KNOWN = ["claude-opus-4-6", "claude-opus-4-5", "claude-sonnet-4-6", "gpt-5", "gpt-5-mini", "gemini-2.5-pro"];

beforeEach(async () => {
  await resetState();
  for (const model of KNOWN) await putRow(model, model === "claude-opus-4-6" ? OPUS : { input: 1, output: 2 });
});

describe("an unknown model's answer", () => {
  it("keeps the reference's reason byte for byte, and names the closest known models apart", async () => {
    const answer = await (await postGate({ model_name: "claude-opus-4.6", output_tokens: 20_000 })).json<
      Record<string, any>
    >();
    expect(answer).toMatchObject({
      fire: false,
      reason_code: "unpriced",
      reason: "no MODEL_PRICING row for 'claude-opus-4.6'",
    });
    expect(answer.suggestions).toEqual(["claude-opus-4-6", "claude-opus-4-5", "claude-sonnet-4-6"]);
  });

  it("suggests nothing for a name near no model, and carries no suggestions when priced or below the pre-filter", async () => {
    expect(
      (await (await postGate({ model_name: "llama-70b-instruct", output_tokens: 20_000 })).json<Record<string, any>>())
        .suggestions,
    ).toEqual([]);
    expect(await (await postGate({ model_name: "gpt-5", output_tokens: 20_000 })).json()).not.toHaveProperty(
      "suggestions",
    );
    expect(await (await postGate({ model_name: "gpt5", output_tokens: 10 })).json()).not.toHaveProperty("suggestions");
  });

  it("gets suggestions in a batch too, item by item", async () => {
    const res = await postJson("/v1/gate/batch", {
      items: [
        { model_name: "GPT-5", output_tokens: 20_000 },
        { model_name: "gpt-5", output_tokens: 20_000 },
      ],
    });
    const { decisions } = await res.json<{ decisions: Record<string, any>[] }>();
    expect(decisions.map((d) => d.suggestions)).toEqual([["gpt-5", "gpt-5-mini"], undefined]);
  });
});

describe("closestNames", () => {
  it("finds typos, a missing date suffix and a provider prefix, closest first", () => {
    expect(closestNames("gpt5", KNOWN)).toEqual(["gpt-5"]);
    expect(closestNames("claude-opus-4-6-20260101", KNOWN)[0]).toBe("claude-opus-4-6");
    expect(closestNames("openai/gpt-5", KNOWN)[0]).toBe("gpt-5");
    expect(closestNames("gemini-2_5-pro", KNOWN)).toEqual(["gemini-2.5-pro"]);
    expect(closestNames("x", KNOWN)).toEqual([]);
    expect(closestNames("claude", KNOWN).length).toBeLessThanOrEqual(3);
  });
});
