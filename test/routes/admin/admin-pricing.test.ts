import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { adminCall, expect400 } from "../../support/admin-helpers";
import { BIG, GPT5, putPricing, usePricingAdmin } from "../../support/admin-pricing";
import { OPUS, postGate, putAlias, putRow, resetState } from "../../support/helpers";

usePricingAdmin();
const put = putPricing;

describe("PUT /v1/admin/pricing/:model", () => {
  it("writes the row and its alias keys", async () => {
    const res = await put("gpt-5", { ...GPT5, aliases: ["gpt-5-2025-08-07"] });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ model: "gpt-5", changed: true, version: 1, warnings: [] });
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string)).toEqual({
      ...GPT5,
      aliases: ["gpt-5-2025-08-07"],
    });
    expect(await env.PRICING.get("alias:gpt-5-2025-08-07")).toBe("gpt-5");
  });

  it("removes the alias keys a new version no longer lists, and no others", async () => {
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-a", "gpt-5-b"] });
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-b"] });
    expect(await env.PRICING.get("alias:gpt-5-a")).toBeNull();
    expect(await env.PRICING.get("alias:gpt-5-b")).toBe("gpt-5");
  });

  it("is served at once by the isolate that wrote it, row and aliases, without a KV read", async () => {
    await putRow("gpt-5", { input: 100, output: 100, aliases: ["gpt-5-old"] });
    await putAlias("gpt-5-old", "gpt-5");
    // Warm this isolate's cache with the old row and alias.
    expect((await (await postGate(BIG)).json<any>()).priced_as.input).toBe(100);
    expect((await (await postGate({ ...BIG, model_name: "gpt-5-old" })).json<any>()).priced_as.input).toBe(100);

    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-new"] });
    const get = vi.spyOn(env.PRICING, "get");
    expect((await (await postGate(BIG)).json<any>()).priced_as.input).toBe(1.25);
    const viaNew = await (await postGate({ ...BIG, model_name: "gpt-5-new" })).json<any>();
    expect(viaNew.priced_as).toMatchObject({ model: "gpt-5", input: 1.25 });
    expect((await (await postGate({ ...BIG, model_name: "gpt-5-old" })).json<any>()).reason_code).toBe("unpriced");
    const keysRead = get.mock.calls.map((args) => args[0]);
    expect(keysRead).not.toContain("pricing:gpt-5");
    expect(keysRead).not.toContain("alias:gpt-5-new");
  });

  it("changes nothing and records nothing when the row is already stored", async () => {
    await put("gpt-5", GPT5);
    const again = await (
      await put("gpt-5", { output: 10, input: 1.25, provider: "openai", cache_read: 0.125 })
    ).json<any>();
    expect(again).toMatchObject({ changed: false, version: 1 });
    expect((await (await adminCall("GET", "/v1/admin/pricing/gpt-5/history")).json<any>()).versions).toHaveLength(1);
  });

  it("accepts an Anthropic row whose cache prices break the usual ratios, with a warning per field", async () => {
    const res = await put("claude-odd", {
      input: 3,
      output: 15,
      cache_read: 0.5,
      cache_write: 3.75,
      cache_write_1h: 5,
      provider: "anthropic",
    });
    expect(res.status).toBe(200);
    const { warnings } = await res.json<any>();
    expect(warnings).toEqual([
      { path: "cache_read", message: "is 0.5, not at most 0.1 × input (0.30000000000000004), as Anthropic prices it" },
      { path: "cache_write_1h", message: "is 5, not 2 × input (6), as Anthropic prices it" },
    ]);
    expect(await env.PRICING.get("pricing:claude-odd")).not.toBeNull();
  });

  it("warns about a long-context tier's ratios against that tier's input price", async () => {
    const row = {
      input: 3,
      output: 15,
      cache_read: 0.3,
      provider: "anthropic",
      long_context: { threshold_tokens: 200_000, input: 6, cache_read: 0.9 },
    };
    const { warnings } = await (await put("claude-lc", row)).json<any>();
    expect(warnings.map((warning: { path: string }) => warning.path)).toEqual(["long_context.cache_read"]);
  });

  it("does not warn about an Anthropic row with the usual ratios, nor about other providers", async () => {
    expect((await (await put("claude-ok", { ...OPUS, provider: "anthropic" })).json<any>()).warnings).toEqual([]);
    expect(
      (await (await put("gpt-odd", { input: 3, output: 15, cache_read: 0.5, provider: "openai" })).json<any>())
        .warnings,
    ).toEqual([]);
  });

  describe("validation", () => {
    it("refuses an unknown field, naming it", async () => {
      await expect400(await put("gpt-5", { ...GPT5, inptu: 2 }), "inptu", "is not a known field");
    });
    it("refuses a negative price", async () => {
      await expect400(await put("gpt-5", { ...GPT5, output: -1 }), "output", "must not be negative");
    });
    it("refuses a non-finite price", async () => {
      await expect400(await put("gpt-5", '{"input": 1e999, "output": 10}'), "input", "");
    });
    it("refuses a price above the ceiling", async () => {
      await expect400(await put("gpt-5", { ...GPT5, input: 2_000_000 }), "input", "at most");
    });
    it("refuses a row without input", async () => {
      await expect400(await put("gpt-5", { output: 10 }), "input", "is required");
    });
    it("refuses a price that is not a number", async () => {
      await expect400(await put("gpt-5", { ...GPT5, input: "1.25" }), "input", "must be a number");
    });
    it("refuses a long-context tier without a threshold", async () => {
      await expect400(await put("gpt-5", { ...GPT5, long_context: { input: 2 } }), "long_context.threshold_tokens", "");
    });
    it("refuses a malformed alias, source or date", async () => {
      await expect400(await put("gpt-5", { ...GPT5, aliases: ["bad alias"] }), "aliases.0", "must match");
      await expect400(await put("gpt-5", { ...GPT5, source: "not a url" }), "source", "URL");
      await expect400(await put("gpt-5", { ...GPT5, verified_at: "30/11/2026" }), "verified_at", "YYYY-MM-DD");
    });
    it("refuses a bad model name in the path", async () => {
      await expect400(await put("bad%20name", GPT5), "model", "must match");
    });
    it("refuses invalid JSON and a body that is not JSON", async () => {
      expect((await put("gpt-5", "{nope")).status).toBe(400);
      const res = await adminCall("PUT", "/v1/admin/pricing/gpt-5");
      expect(res.status).toBe(415);
    });
    it("refuses an alias that another model holds, or that has its own row", async () => {
      await put("gpt-5", { ...GPT5, aliases: ["gpt-5-latest"] });
      await expect400(
        await put("gpt-5-mini", { input: 0.25, output: 2, aliases: ["gpt-5-latest"] }),
        "aliases.0",
        "already an alias of gpt-5",
      );
      await expect400(
        await put("gpt-5-mini", { input: 0.25, output: 2, aliases: ["claude-opus-4-6"] }),
        "aliases.0",
        "has its own pricing row",
      );
      await expect400(
        await put("gpt-5-mini", { input: 0.25, output: 2, aliases: ["gpt-5-mini"] }),
        "aliases.0",
        "own name",
      );
    });
    it("refuses a row under a name that is an alias", async () => {
      await put("gpt-5", { ...GPT5, aliases: ["gpt-5-latest"] });
      await expect400(await put("gpt-5-latest", GPT5), "model", "is an alias of gpt-5");
    });
  });

  it("takes a model name with a slash, sent as %2F", async () => {
    expect((await put("openai%2Fgpt-5", GPT5)).status).toBe(200);
    expect(await env.PRICING.get("pricing:openai/gpt-5")).not.toBeNull();
    expect((await (await adminCall("GET", "/v1/admin/pricing/openai%2Fgpt-5")).json<any>()).model).toBe("openai/gpt-5");
  });

  it("retries KV's 429 with backoff instead of failing", async () => {
    const realPut = env.PRICING.put.bind(env.PRICING);
    let refusals = 2;
    const putSpy = vi
      .spyOn(env.PRICING, "put")
      .mockImplementation(((key: string, ...rest: [string]) =>
        key === "pricing:gpt-5" && refusals-- > 0
          ? Promise.reject(new Error("KV PUT failed: 429 Too Many Requests"))
          : realPut(key, ...rest)) as never);
    const res = await put("gpt-5", GPT5);
    expect(res.status).toBe(200);
    expect(putSpy.mock.calls.filter((args) => args[0] === "pricing:gpt-5")).toHaveLength(3);
    expect(await env.PRICING.get("pricing:gpt-5")).not.toBeNull();
  });

  it("answers 503 with Retry-After, not 500, when KV keeps answering 429", async () => {
    vi.spyOn(env.PRICING, "put").mockRejectedValue(new Error("KV PUT failed: 429 Too Many Requests"));
    const res = await put("gpt-5", GPT5);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect((await res.json<any>()).error.code).toBe("unavailable");
  }, 20_000);
});

describe("GET /v1/admin/pricing", () => {
  it("lists every row, valid or not, and every alias", async () => {
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-2025-08-07"] });
    await putRow("broken", '{"input": -1}');
    const body = await (await adminCall("GET", "/v1/admin/pricing")).json<any>();
    expect(body.count).toBe(3);
    expect(Object.keys(body.models).sort()).toEqual(["claude-opus-4-6", "gpt-5"]);
    expect(body.invalid).toEqual([{ model: "broken", problem: expect.stringContaining("pricing:broken is invalid") }]);
    expect(body.aliases).toEqual({ "gpt-5-2025-08-07": "gpt-5" });
  });

  it("pages through KV list() until list_complete", async () => {
    const names = Array.from({ length: 1_005 }, (_, index) => `model-${String(index).padStart(4, "0")}`);
    await Promise.all(names.map((name) => putRow(name, { input: 1, output: 2 })));
    const list = vi.spyOn(env.PRICING, "list");
    const body = await (await adminCall("GET", "/v1/admin/pricing")).json<any>();
    expect(body.count).toBe(1_006);
    expect(body.models["model-1004"]).toEqual({ input: 1, output: 2 });
    expect(list.mock.calls.filter(([options]) => options?.prefix === "pricing:").length).toBeGreaterThanOrEqual(2);
    // Its 1,005 rows are cleared within its own time budget, not in the next test's beforeEach.
    list.mockRestore();
    await resetState();
  }, 60_000);
});

describe("GET /v1/admin/pricing/:model", () => {
  it("shows a stored row that is invalid, and what is wrong with it", async () => {
    await putRow("broken", '{"input": 1, "output": 2, "colour": "red"}');
    const body = await (await adminCall("GET", "/v1/admin/pricing/broken")).json<any>();
    expect(body).toMatchObject({ model: "broken", row: null, value: { colour: "red" }, version: 0 });
    expect(body.problem).toContain("colour");
  });

  it("answers 404 for a model without a row", async () => {
    expect((await adminCall("GET", "/v1/admin/pricing/nope")).status).toBe(404);
  });
});

describe("DELETE /v1/admin/pricing/:model", () => {
  it("deletes the row and its aliases, records it, and stops pricing at once", async () => {
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-latest"] });
    expect((await (await postGate(BIG)).json<any>()).reason_code).toBe("net_positive");
    const res = await adminCall("DELETE", "/v1/admin/pricing/gpt-5");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ row: null, changed: true, version: 2 });
    expect(await env.PRICING.get("pricing:gpt-5")).toBeNull();
    expect(await env.PRICING.get("alias:gpt-5-latest")).toBeNull();
    expect((await (await postGate(BIG)).json<any>()).reason_code).toBe("unpriced");
    expect((await (await postGate({ ...BIG, model_name: "gpt-5-latest" })).json<any>()).reason_code).toBe("unpriced");
  });

  it("answers 404 for a model without a row", async () => {
    expect((await adminCall("DELETE", "/v1/admin/pricing/nope")).status).toBe(404);
  });
});
