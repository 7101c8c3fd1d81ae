import { beforeEach, describe, expect, it } from "vitest";
import { postJson, putRow, resetState } from "../../support/helpers";
import { OPUS } from "../../fixtures/rows";
import { adminCall } from "../../support/admin-helpers";

const fetchAdmin = (row: object) => adminCall("PUT", "/v1/admin/pricing/own-ttls", row);

// The providers' caches over HTTP (docs/design/economics.md §5.1): each row offers its provider's TTLs
// (or its own cache_ttls), a request without cache_ttl is priced at the row's first, and one that names a
// TTL the model does not offer is a 400 naming cache_ttl, on the gate, its batch, the plan and context management.

const GPT5 = { input: 1.25, output: 10, cache_read: 0.125, provider: "openai" };
const GPT4O = { input: 2.5, output: 10, cache_read: 1.25, provider: "openai", cache_ttls: ["in_memory"] };
const GEMINI = { input: 1.25, output: 10, cache_read: 0.125, provider: "google" };
const ANTHROPIC = { ...OPUS, provider: "anthropic" };

beforeEach(async () => {
  await resetState();
  await putRow("gpt-5", GPT5 as never);
  await putRow("gpt-4o", GPT4O as never);
  await putRow("gemini-2.5-pro", GEMINI as never);
  await putRow("claude-opus-4-6", ANTHROPIC as never);
});

const gate = (fields: object) =>
  postJson("/v1/gate", {
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.3,
    pricing_mode: "cache_aware",
    context_tokens: 60_000,
    ...fields,
  });
const segments = [{ tokens: 8_000 }, { id: "c1", tokens: 42_000 }, { tokens: 1_500 }];

describe("cache_ttl by provider", () => {
  it("defaults to the provider's cache: in_memory at OpenAI, implicit at Gemini, 5m at Anthropic", async () => {
    for (const [model, ttl] of [
      ["gpt-5", "in_memory"],
      ["gemini-2.5-pro", "implicit"],
      ["claude-opus-4-6", "5m"],
    ] as const) {
      const res = await gate({ model_name: model });
      expect(res.status, model).toBe(200);
      expect((await res.json<any>()).inputs.cache_ttl, model).toBe(ttl);
    }
  });

  it("prices OpenAI's 24-hour retention as its in-memory cache (no write charge) and names it in the reason", async () => {
    const day = await (await gate({ model_name: "gpt-5", cache_ttl: "24h" })).json<any>();
    const memory = await (await gate({ model_name: "gpt-5" })).json<any>();
    expect(day.net_saving_usd).toBe(memory.net_saving_usd);
    expect(day.reason).toContain(" ttl=24h ");
    expect(memory.reason).not.toContain("ttl=");
  });

  it("refuses a TTL the model does not offer with a 400 naming cache_ttl, on the gate and in a batch", async () => {
    const res = await gate({ model_name: "gpt-5", cache_ttl: "1h" });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues).toEqual([
      { path: "cache_ttl", message: 'is not offered for gpt-5, which offers "in_memory" or "24h"' },
    ]);
    const refused = await (await gate({ model_name: "claude-opus-4-6", cache_ttl: "24h" })).json<any>();
    expect(refused.error.message).toBe('cache_ttl is not offered for claude-opus-4-6, which offers "5m" or "1h"');
    const own = await (await gate({ model_name: "gpt-4o", cache_ttl: "24h" })).json<any>();
    expect(own.error.issues[0].message).toBe('is not offered for gpt-4o, which offers "in_memory"');

    const batch = await postJson("/v1/gate/batch", {
      items: [
        { model_name: "gpt-5", output_tokens: 20_000, pricing_mode: "cache_aware", cache_ttl: "5m" },
        { model_name: "gpt-5", output_tokens: 20_000, pricing_mode: "cache_aware", cache_ttl: "24h" },
      ],
    });
    expect(batch.status).toBe(200);
    const { decisions } = await batch.json<any>();
    expect(decisions[0].error.issues).toEqual([
      { path: "items.0.cache_ttl", message: 'is not offered for gpt-5, which offers "in_memory" or "24h"' },
    ]);
    expect(decisions[1].inputs.cache_ttl).toBe("24h");
  });

  it("refuses an unknown TTL by its name before any row is read", async () => {
    const res = await gate({ model_name: "gpt-5", cache_ttl: "forever" });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.message).toBe(
      'cache_ttl must be "5m" or "1h" or "in_memory" or "24h" or "implicit" or "30m"',
    );
  });

  it("holds for the plan and context management: the provider's default, and a 400 for a TTL not offered", async () => {
    const plan = await (
      await postJson("/v1/plan", { model_name: "gemini-2.5-pro", segments, dry_run: true })
    ).json<any>();
    expect(plan.inputs.cache_ttl).toBe("implicit");
    expect(plan.reason).toContain("ttl=implicit");
    for (const path of ["/v1/plan", "/v1/context-management"]) {
      const res = await postJson(path, { model_name: "gemini-2.5-pro", segments, cache_ttl: "1h", dry_run: true });
      expect(res.status, path).toBe(400);
      expect((await res.json<any>()).error.issues, path).toEqual([
        { path: "cache_ttl", message: 'is not offered for gemini-2.5-pro, which offers "implicit"' },
      ]);
    }
  });

  it("lets a row list its own TTLs, and refuses a list with an unknown or repeated TTL", async () => {
    const put = (row: object) =>
      fetchAdmin(row).then(async (res) => [res.status, (await res.json<any>()).error?.issues?.[0]?.path] as const);
    expect(await put({ input: 1, output: 2, cache_read: 0.1, cache_ttls: ["24h", "in_memory"] })).toEqual([
      200,
      undefined,
    ]);
    expect((await put({ input: 1, output: 2, cache_ttls: ["2h"] }))[0]).toBe(400);
    expect(await put({ input: 1, output: 2, cache_ttls: ["5m", "5m"] })).toEqual([400, "cache_ttls"]);
  });
});
