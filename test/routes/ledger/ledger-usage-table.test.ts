import { reset } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { OPUS, putRow, resetState } from "../../support/helpers";
import { callWorker } from "../../support/ledger-fixtures";

// One table of every provider shape POST /v1/sessions takes (docs/api/ledger.md): for each, a usage the
// bill reads whole, one with no count the bill reads, and ones whose totals or parts contradict each
// other. `null`: accepted; paths: `invalid`, naming those fields and nothing else.
type Row = [shape: string, what: string, usage: unknown, invalid: string | null];

const TABLE: Row[] = [
  ["anthropic", "every count", { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100 }, null],
  ["anthropic", "no cache counts", { input_tokens: 0, output_tokens: 0 }, null],
  ["anthropic", "the input count left out", { output_tokens: 5 }, "input_tokens"],
  ["anthropic", "nulls where counts are required", { input_tokens: null, output_tokens: 5 }, "input_tokens"],
  [
    "anthropic",
    "a TTL split above the writes",
    {
      input_tokens: 1,
      output_tokens: 1,
      cache_creation_input_tokens: 5,
      cache_creation: { ephemeral_1h_input_tokens: 6 },
    },
    "cache_creation_input_tokens",
  ],
  [
    "anthropic iterations",
    "a top level inside the steps",
    {
      input_tokens: 20,
      output_tokens: 2,
      iterations: [
        { input_tokens: 90, output_tokens: 9 },
        { input_tokens: 20, output_tokens: 2 },
      ],
    },
    null,
  ],
  [
    "anthropic iterations",
    "a top level above the steps' sum",
    { input_tokens: 500, output_tokens: 2, iterations: [{ input_tokens: 90, output_tokens: 9 }] },
    "input_tokens",
  ],
  ["openai_chat", "a total that adds up", { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 }, null],
  ["openai_chat", "no total", { prompt_tokens: 50, completion_tokens: 7 }, null],
  [
    "openai_chat",
    "a total above its parts",
    { prompt_tokens: 50, completion_tokens: 7, total_tokens: 1_000 },
    "total_tokens",
  ],
  [
    "openai_chat",
    "a total below its parts",
    { prompt_tokens: 50, completion_tokens: 7, total_tokens: 50 },
    "total_tokens",
  ],
  ["openai_chat", "only a total", { total_tokens: 57, prompt_tokens_details: {} }, "prompt_tokens completion_tokens"],
  [
    "openai_chat",
    "more cached than prompt",
    { prompt_tokens: 5, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 6 } },
    "prompt_tokens_details.cached_tokens",
  ],
  [
    "openai_chat",
    "more reasoning than completion",
    { prompt_tokens: 5, completion_tokens: 1, completion_tokens_details: { reasoning_tokens: 9 } },
    "completion_tokens_details.reasoning_tokens",
  ],
  ["openai_responses", "a total that adds up", { input_tokens: 80, output_tokens: 20, total_tokens: 100 }, null],
  [
    "openai_responses",
    "a total above its parts",
    { input_tokens: 80, output_tokens: 20, total_tokens: 1e6 },
    "total_tokens",
  ],
  ["openai_responses", "only a total", { total_tokens: 100 }, "input_tokens output_tokens"],
  [
    "openai_responses",
    "more cached than input",
    { input_tokens: 8, output_tokens: 2, input_tokens_details: { cached_tokens: 9 } },
    "input_tokens_details.cached_tokens",
  ],
  [
    "openai_responses",
    "more reasoning than output",
    { input_tokens: 8, output_tokens: 2, output_tokens_details: { reasoning_tokens: 3 } },
    "output_tokens_details.reasoning_tokens",
  ],
  [
    "gemini",
    "a total that adds up",
    {
      promptTokenCount: 30,
      candidatesTokenCount: 5,
      thoughtsTokenCount: 15,
      toolUsePromptTokenCount: 10,
      totalTokenCount: 60,
    },
    null,
  ],
  ["gemini", "only the prompt (zeros left out)", { promptTokenCount: 30 }, null],
  ["gemini", "only a total", { totalTokenCount: 100 }, "promptTokenCount"],
  ["gemini", "only a zero total", { totalTokenCount: 0 }, "promptTokenCount"],
  [
    "gemini",
    "a total above its parts",
    { promptTokenCount: 30, candidatesTokenCount: 5, totalTokenCount: 100 },
    "totalTokenCount",
  ],
  [
    "gemini",
    "a total that leaves thinking out",
    { promptTokenCount: 30, candidatesTokenCount: 5, thoughtsTokenCount: 15, totalTokenCount: 35 },
    "totalTokenCount",
  ],
  ["gemini", "more cached than prompt", { promptTokenCount: 3, cachedContentTokenCount: 4 }, "cachedContentTokenCount"],
  [
    "bedrock",
    "a total that adds up",
    { inputTokens: 4, outputTokens: 11, totalTokens: 1_262, cacheReadInputTokens: 0, cacheWriteInputTokens: 1_247 },
    null,
  ],
  ["bedrock", "a total above its parts", { inputTokens: 4, outputTokens: 11, totalTokens: 9_999 }, "totalTokens"],
  [
    "bedrock",
    "a total that leaves the cache out",
    { inputTokens: 4, outputTokens: 11, totalTokens: 15, cacheReadInputTokens: 5 },
    "totalTokens",
  ],
  ["bedrock", "only a total", { totalTokens: 15, outputTokens: 1 }, "inputTokens"],
  [
    "bedrock",
    "TTL details that do not add up to the writes",
    { inputTokens: 1, outputTokens: 1, cacheWriteInputTokens: 10, cacheDetails: [{ ttl: "1h", inputTokens: 4 }] },
    "cacheWriteInputTokens",
  ],
];

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("POST /v1/sessions over the whole table of provider usage shapes", () => {
  it("accepts every usage that adds up and refuses every other, naming its field, each alone and as one request of a list", async () => {
    const items = TABLE.flatMap(([, , usage], i) => [
      { session_id: `table-${i}`, model_name: "claude-opus-4-6", turns: 1, usage },
      { session_id: `table-list-${i}`, model_name: "claude-opus-4-6", turns: 2, usage: [usage, usage] },
    ]);
    const res = await callWorker("/v1/sessions", { json: { items } });
    expect(res.status).toBe(200);
    const { results } = await res.json<{ results: Record<string, any>[] }>();
    const got = TABLE.map(([shape, what], i) => {
      const paths = (k: number) =>
        results[k]!.status === "accepted" ? null : results[k]!.issues.map((x: { path: string }) => x.path).join(" ");
      return [shape, what, paths(2 * i), paths(2 * i + 1)];
    });
    const named = (item: string, invalid: string) => invalid.split(" ").map((path) => `${item}.${path}`);
    const want = TABLE.map(([shape, what, , invalid], i) => [
      shape,
      what,
      invalid === null ? null : named(`items.${2 * i}.usage`, invalid).join(" "),
      invalid === null ? null : [0, 1].flatMap((k) => named(`items.${2 * i + 1}.usage.${k}`, invalid)).join(" "),
    ]);
    expect(got).toEqual(want);
    expect(results.filter((r) => r.status === "accepted").length).toBe(2 * TABLE.filter((r) => r[3] === null).length);
  });

  it("covers every shape the gate knows, each with at least one refusal", async () => {
    const shapes = new Set(TABLE.map(([shape]) => shape.split(" ")[0]));
    expect([...shapes].sort()).toEqual(["anthropic", "bedrock", "gemini", "openai_chat", "openai_responses"]);
    for (const shape of shapes) expect(TABLE.some(([s, , , bad]) => s.startsWith(shape!) && bad !== null)).toBe(true);
  });
});
