import { reset } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { usageShape } from "../../../src/routes/ledger/usage";
import { OPUS, putRow, resetState } from "../../support/helpers";
import { SONNET_45 } from "../../fixtures/rows";
import { callWorker } from "../../support/ledger-fixtures";

// Each provider's usage object as it comes, and the bill priced by hand from
// the list prices (USD per million): Opus 5 / 25 / read 0.5 / write 6.25 /
// 1-hour write 10; the OpenAI-like and Gemini-like rows 1.25 / 10 / read 0.125.

const CHEAP = { input: 1.25, output: 10, cache_read: 0.125 };

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await putRow("gpt-5", CHEAP);
  await putRow("gemini-2.5-pro", CHEAP);
  await putRow("claude-sonnet-4-5", SONNET_45);
});

const post = async (items: unknown[]) => {
  const res = await callWorker("/v1/sessions", { json: { items }, key: "agents-prod" });
  expect(res.status).toBe(200);
  return res.json<{ results: Record<string, any>[] }>();
};

/**
 * Reports one session and reads its bill back from the savings report. The
 * session gets a decision first: the holdout counts only sessions with one.
 */
async function billed(model_name: string, usage: unknown, turns = 3): Promise<number> {
  const gate = await callWorker("/v1/gate", {
    json: { model_name, output_tokens: 20_000, horizon: 4, recall_probability: 0.3, session_id: "conv-usage" },
    key: "agents-prod",
  });
  expect(gate.status).toBe(200);
  const { results } = await post([{ session_id: "conv-usage", model_name, turns, usage }]);
  expect(results[0]).toEqual({ status: "accepted", repeated: false });
  const report = await (await callWorker("/v1/savings", { key: "agents-prod" })).json<Record<string, any>>();
  expect(report.holdout.sessions).toBe(1);
  return report.holdout.mean_cost_usd;
}

async function issuesOf(usage: unknown): Promise<string[]> {
  const { results } = await post([{ session_id: "conv-bad", model_name: "claude-opus-4-6", turns: 1, usage }]);
  expect(results[0]!.status).toBe("invalid");
  return results[0]!.issues.map((issue: { path: string }) => issue.path);
}

describe("POST /v1/sessions bills each provider's usage as it came", () => {
  it("prices Anthropic's 1-hour writes at the 1-hour rate and 5-minute ones at the 5-minute rate", async () => {
    const usage = {
      input_tokens: 1_000,
      output_tokens: 2_000,
      cache_read_input_tokens: 100_000,
      cache_creation_input_tokens: 30_000,
      cache_creation: { ephemeral_5m_input_tokens: 10_000, ephemeral_1h_input_tokens: 20_000 },
      service_tier: "standard",
      server_tool_use: null,
    };
    // 1,000·5 + 2,000·25 + 100,000·0.5 + 10,000·6.25 + 20,000·10 = 367,500 µ$
    expect(await billed("claude-opus-4-6", usage)).toBeCloseTo(0.3675, 12);
  });

  it("bills Anthropic's compaction iterations, which the top-level usage leaves out", async () => {
    const usage = {
      input_tokens: 23_000,
      output_tokens: 1_000,
      iterations: [
        { type: "compaction", input_tokens: 180_000, output_tokens: 3_500 },
        { type: "message", input_tokens: 23_000, output_tokens: 1_000 },
      ],
    };
    // (180,000 + 23,000)·5 + (3,500 + 1,000)·25 = 1,127,500 µ$
    expect(await billed("claude-opus-4-6", usage)).toBeCloseTo(1.1275, 12);
  });

  it("takes OpenAI Chat's cached tokens out of prompt_tokens and reads them at the cache price", async () => {
    const usage = {
      prompt_tokens: 50_000,
      completion_tokens: 1_000,
      total_tokens: 51_000,
      prompt_tokens_details: { cached_tokens: 40_000, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 300 },
    };
    // 10,000·1.25 + 40,000·0.125 + 1,000·10 = 27,500 µ$
    expect(await billed("gpt-5", usage)).toBeCloseTo(0.0275, 12);
  });

  it("takes OpenAI Responses' cached tokens out of input_tokens", async () => {
    const usage = {
      input_tokens: 80_000,
      input_tokens_details: { cached_tokens: 60_000 },
      output_tokens: 2_000,
      output_tokens_details: { reasoning_tokens: 500 },
      total_tokens: 82_000,
    };
    // 20,000·1.25 + 60,000·0.125 + 2,000·10 = 52,500 µ$
    expect(await billed("gpt-5", usage)).toBeCloseTo(0.0525, 12);
  });

  it("bills Gemini's thinking as output and its tool-use prompt as input", async () => {
    const usage = {
      promptTokenCount: 30_000,
      cachedContentTokenCount: 20_000,
      candidatesTokenCount: 500,
      thoughtsTokenCount: 1_500,
      toolUsePromptTokenCount: 1_000,
      totalTokenCount: 33_000,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 30_000 }],
    };
    // (30,000 − 20,000 + 1,000)·1.25 + 20,000·0.125 + (500 + 1,500)·10 = 36,250 µ$
    expect(await billed("gemini-2.5-pro", usage)).toBeCloseTo(0.03625, 12);
  });

  it("splits Bedrock's cache writes by cacheDetails' TTLs", async () => {
    const usage = {
      inputTokens: 2_000,
      outputTokens: 300,
      totalTokens: 64_300,
      cacheReadInputTokens: 50_000,
      cacheWriteInputTokens: 12_000,
      cacheDetails: [
        { ttl: "1h", inputTokens: 8_000 },
        { ttl: "5m", inputTokens: 4_000 },
      ],
    };
    // 2,000·5 + 300·25 + 50,000·0.5 + 4,000·6.25 + 8,000·10 = 147,500 µ$
    expect(await billed("claude-opus-4-6", usage)).toBeCloseTo(0.1475, 12);
  });

  it("prices a list of per-request usages each at its own size, so only the long request pays the tier", async () => {
    const requests = [
      { input_tokens: 250_000, output_tokens: 1_000 },
      { input_tokens: 10_000, output_tokens: 1_000 },
    ];
    // 250,000·6 + 1,000·22.5 (tier) + 10,000·3 + 1,000·15 (base) = 1,567,500 µ$
    expect(await billed("claude-sonnet-4-5", requests, 2)).toBeCloseTo(1.5675, 12);
  });

  it("still tiers a summed usage by the mean request, as before", async () => {
    // mean request 130,000 < 200,000: 260,000·3 + 2,000·15 = 810,000 µ$
    expect(await billed("claude-sonnet-4-5", { input_tokens: 260_000, output_tokens: 2_000 }, 2)).toBeCloseTo(0.81, 12);
  });

  it("treats a repeated provider-shaped report as a retry, and a different one as a conflict", async () => {
    const item = {
      session_id: "conv-r",
      model_name: "gpt-5",
      turns: 2,
      usage: [
        { prompt_tokens: 10, completion_tokens: 1 },
        { prompt_tokens: 20, completion_tokens: 2 },
      ],
    };
    expect((await post([item])).results[0]).toEqual({ status: "accepted", repeated: false });
    expect((await post([item])).results[0]).toEqual({ status: "accepted", repeated: true });
    const other = {
      ...item,
      usage: [
        { prompt_tokens: 20, completion_tokens: 2 },
        { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 5 } },
      ],
    };
    expect((await post([other])).results[0]!.status).toBe("conflict");
  });
});

describe("POST /v1/sessions refuses a usage it cannot bill exactly, naming the field", () => {
  it("refuses a shape no provider sends", async () => {
    expect(await issuesOf({ tokens: 5 })).toEqual(["items.0.usage"]);
    expect(await issuesOf("12000")).toEqual(["items.0.usage"]);
    expect(await issuesOf([])).toEqual(["items.0.usage"]);
  });

  it("names an unknown field of a known shape rather than billing it as zero", async () => {
    expect(await issuesOf({ input_tokens: 10, output_tokens: 1, cache_raed_input_tokens: 5 })).toEqual([
      "items.0.usage.cache_raed_input_tokens",
    ]);
  });

  it("refuses cached tokens above the input that includes them", async () => {
    expect(
      await issuesOf({ prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 20 } }),
    ).toEqual(["items.0.usage.prompt_tokens_details.cached_tokens"]);
    expect(await issuesOf({ promptTokenCount: 10, cachedContentTokenCount: 11 })).toEqual([
      "items.0.usage.cachedContentTokenCount",
    ]);
  });

  it("refuses TTL splits that do not add up to the writes", async () => {
    const anthropic = {
      input_tokens: 1,
      output_tokens: 1,
      cache_creation_input_tokens: 10,
      cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 3 },
    };
    expect(await issuesOf(anthropic)).toEqual(["items.0.usage.cache_creation_input_tokens"]);
    const bedrock = {
      inputTokens: 1,
      outputTokens: 1,
      cacheWriteInputTokens: 10,
      cacheDetails: [{ ttl: "1h", inputTokens: 3 }],
    };
    expect(await issuesOf(bedrock)).toEqual(["items.0.usage.cacheWriteInputTokens"]);
  });

  it("names the request of a list that is wrong, and refuses mixed shapes", async () => {
    expect(
      await issuesOf([
        { input_tokens: 1, output_tokens: 1 },
        { input_tokens: -1, output_tokens: 1 },
      ]),
    ).toEqual(["items.0.usage.1.input_tokens"]);
    expect(
      await issuesOf([
        { input_tokens: 1, output_tokens: 1 },
        { inputTokens: 1, outputTokens: 1 },
      ]),
    ).toEqual(["items.0.usage"]);
  });
});

describe("usageShape", () => {
  it("tells the shapes apart by their field names", () => {
    expect(usageShape({ input_tokens: 1, output_tokens: 1 })).toBe("anthropic");
    expect(usageShape({ input_tokens: 1, output_tokens: 1, input_tokens_details: {} })).toBe("openai_responses");
    expect(usageShape({ prompt_tokens: 1 })).toBe("openai_chat");
    expect(usageShape({ candidatesTokenCount: 1 })).toBe("gemini");
    expect(usageShape({ inputTokens: 1, outputTokens: 1 })).toBe("bedrock");
    expect(usageShape({})).toBeNull();
  });
});
