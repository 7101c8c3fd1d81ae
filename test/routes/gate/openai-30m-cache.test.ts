import { beforeEach, describe, expect, it } from "vitest";
import { ProviderUsageSchema } from "../../../src/routes/ledger/usage";
import { postJson, putRow, resetState } from "../../support/helpers";

// OpenAI's 30-minute cache of GPT-5.6 and later (docs/design/economics.md §5.2): "30m" is the row's only
// TTL and its default, writes pay cache_write (1.25x input); earlier models keep in_memory and 24h.

const TERRA = { input: 2, output: 12, cache_read: 0.2, cache_write: 2.5, provider: "openai", cache_ttls: ["30m"] };
const GPT5 = { input: 1.25, output: 10, cache_read: 0.125, provider: "openai" };
const O1 = {
  model_name: "gpt-5.6-terra",
  pricing_mode: "cache_aware",
  output_tokens: 20_000,
  horizon: 4,
  recall_probability: 0.3,
  cache_hit_rate: 0.9,
  context_tokens: 60_000,
  stub_tokens: 200,
  recall_input_tokens: 2_000,
  recall_output_tokens: 500,
};

beforeEach(async () => {
  await resetState();
  await putRow("gpt-5.6-terra", TERRA as never);
  await putRow("gpt-5", GPT5 as never);
});

describe("OpenAI's 30-minute cache", () => {
  it("prices a GPT-5.6 request at 30m by default, its writes at 1.25x input (example O1)", async () => {
    const answer = await (await postJson("/v1/gate", O1)).json<any>();
    expect(answer.inputs.cache_ttl).toBe("30m");
    // O1 (docs/economics.md): carry(K,4) = 2.5e-6 + 3·(0.9·0.2e-6 + 0.1·2.5e-6) = 3.79e-6 a token.
    expect(answer.reprefill_saving_usd).toBeCloseTo(20_000 * 3.79e-6, 12);
    expect(answer.fire).toBe(true);
  });

  it("accepts 30m named where the row lists it", async () => {
    expect((await postJson("/v1/gate", { ...O1, cache_ttl: "30m" })).status).toBe(200);
  });

  it.each(["in_memory", "24h", "1h"])("refuses %s on a GPT-5.6 row with a 400 naming cache_ttl", async (ttl) => {
    const res = await postJson("/v1/gate", { ...O1, cache_ttl: ttl });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues).toEqual([
      { path: "cache_ttl", message: 'is not offered for gpt-5.6-terra, which offers "30m"' },
    ]);
  });

  it("refuses 30m on an earlier OpenAI model, which keeps in_memory and 24h", async () => {
    const res = await postJson("/v1/gate", { ...O1, model_name: "gpt-5", cache_ttl: "30m" });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues[0]).toEqual({
      path: "cache_ttl",
      message: 'is not offered for gpt-5, which offers "in_memory" or "24h"',
    });
  });
});

describe("a session bill reporting cache_write_tokens", () => {
  it("bills GPT-5.6's written tokens as cache writes (at the row's cache_write), the rest as input", () => {
    const billed = ProviderUsageSchema.parse({
      input_tokens: 100_000,
      output_tokens: 1_000,
      input_tokens_details: { cached_tokens: 60_000, cache_write_tokens: 30_000 },
    });
    expect(billed.requests[0]).toMatchObject({
      input_tokens: 10_000,
      output_tokens: 1_000,
      cache_read_input_tokens: 60_000,
      cache_creation_input_tokens: 30_000,
    });
  });

  it("refuses more written tokens than the uncached input, naming cache_write_tokens", () => {
    const parsed = ProviderUsageSchema.safeParse({
      prompt_tokens: 1_000,
      completion_tokens: 10,
      prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 500 },
    });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("cache_write_tokens");
  });
});
