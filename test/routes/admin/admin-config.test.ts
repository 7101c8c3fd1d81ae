import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { adminCall } from "../../support/admin-helpers";
import { OPUS, postGate, putGateConfig, putRow, resetState } from "../../support/helpers";
import { DEFAULT_GATE_CONFIG } from "../../../src/storage/rules";

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

const putConfig = (body: unknown) => adminCall("PUT", "/v1/admin/config", body);
const getConfig = async () => (await adminCall("GET", "/v1/admin/config")).json<any>();

describe("GET /v1/admin/config", () => {
  it("shows the defaults when config:gate is absent", async () => {
    expect(await getConfig()).toEqual({
      stored: null,
      effective: { ...DEFAULT_GATE_CONFIG },
      problem: null,
      version: 0,
    });
  });

  it("shows what is wrong with a stored config that does not validate", async () => {
    await putGateConfig('{"p_recall": 3}');
    const body = await getConfig();
    expect(body.stored).toBeNull();
    expect(body.problem).toContain("p_recall");
  });
});

describe("PUT /v1/admin/config", () => {
  it("writes the priors, and the writing isolate decides with them at once", async () => {
    await postGate({ model_name: "claude-opus-4-6", output_tokens: 20_000 }); // warm the cached config
    const res = await putConfig({
      expected_conversation_depth: 6,
      p_recall: 0.2,
      stub_tokens: 300,
      pricing_cache_ttl_seconds: 120,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      changed: true,
      version: 1,
      effective: { expected_conversation_depth: 6, kv_budget_ms: 100 },
    });
    const get = vi.spyOn(env.PRICING, "get");
    const body = await (await postGate({ model_name: "claude-opus-4-6", output_tokens: 20_000 })).json<any>();
    expect(body.inputs).toMatchObject({ horizon: 6, recall_probability: 0.2, stub_tokens: 300 });
    expect(get.mock.calls.map((args) => args[0])).not.toContain("config:gate");
    get.mockRestore();
  });

  it.each([
    [{ p_recall: 1.5 }, "p_recall"],
    [{ expected_conversation_depth: -1 }, "expected_conversation_depth"],
    [{ expected_conversation_depth: 2.5 }, "expected_conversation_depth"],
    [{ large_offload_threshold_tokens: "10000" }, "large_offload_threshold_tokens"],
    [{ stub_tokens: -200 }, "stub_tokens"],
    [{ recall_input_tokens: 1e999 }, "recall_input_tokens"],
    [{ recall_output_tokens: -1 }, "recall_output_tokens"],
    [{ pricing_cache_ttl_seconds: 0 }, "pricing_cache_ttl_seconds"],
    [{ pricing_cache_ttl_seconds: 86_400 }, "pricing_cache_ttl_seconds"],
    [{ kv_budget_ms: 0 }, "kv_budget_ms"],
    [{ p_recal: 0.2 }, "p_recal"],
    [{ ledger_raw_days: 0 }, "ledger_raw_days"],
    [{ ledger_raw_days: 31 }, "ledger_raw_days"],
    [{ ledger_raw_days: 10, ledger_retention_days: 7 }, "ledger_raw_days"],
    [{ proxy_modes: { "agents-prod": "on" } }, "proxy_modes.agents-prod"],
    [{ proxy_modes: { "agents prod": "enforce" } }, "proxy_modes.agents prod"],
    [{ proxy_modes: ["agents-prod"] }, "proxy_modes"],
  ])("answers 400 naming the field for %j", async (config, path) => {
    const text = JSON.stringify(config).replace("1e+999", "1e999").replace("null", "1e999");
    const res = await putConfig(text);
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues.map((issue: any) => issue.path)).toContain(path);
    expect(await env.PRICING.get("config:gate")).toBeNull();
  });

  it("keeps raw rows for ledger_raw_days, 2 by default and up to the retention", async () => {
    expect((await getConfig()).effective.ledger_raw_days).toBe(2);
    const res = await putConfig({ ledger_raw_days: 40, ledger_retention_days: 60 });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).effective).toMatchObject({ ledger_raw_days: 40, ledger_retention_days: 60 });
    const refused = await (await putConfig({ ledger_raw_days: 31 })).json<any>();
    expect(refused.error).toMatchObject({
      code: "invalid_request",
      message: "ledger_raw_days must be at most ledger_retention_days (30)",
    });
    expect(refused.error.issues).toEqual([
      { path: "ledger_raw_days", message: "must be at most ledger_retention_days (30)" },
    ]);
  });

  it("sets the proxy's mode per tenant, at most 1000 tenants, and null gives every tenant PROXY_MODE", async () => {
    const res = await putConfig({ proxy_modes: { "agents-prod": "enforce", "agents-staging": "observe" } });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).effective.proxy_modes).toEqual({
      "agents-prod": "enforce",
      "agents-staging": "observe",
    });
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`tenant-${i}`, "enforce"]));
    const refused = await putConfig({ proxy_modes: many });
    expect(refused.status).toBe(400);
    expect((await refused.json<any>()).error.issues).toEqual([
      { path: "proxy_modes", message: "must name at most 1000 tenants" },
    ]);
    expect((await (await putConfig({ proxy_modes: null })).json<any>()).effective.proxy_modes).toBeNull();
  });

  it("keeps history and rolls back, back to no config at all", async () => {
    await putConfig({ p_recall: 0.2 });
    await putConfig({ p_recall: 0.4 });
    const history = await (await adminCall("GET", "/v1/admin/config/history")).json<any>();
    expect(history.versions.map((entry: any) => [entry.version, entry.before, entry.after])).toEqual([
      [2, { p_recall: 0.2 }, { p_recall: 0.4 }],
      [1, null, { p_recall: 0.2 }],
    ]);
    expect((await (await adminCall("POST", "/v1/admin/config/rollback", { version: 1 })).json<any>()).stored).toEqual({
      p_recall: 0.2,
    });
    await adminCall("POST", "/v1/admin/config/rollback", { version: 0 });
    expect(await env.PRICING.get("config:gate")).toBeNull();
    const body = await (await postGate({ model_name: "claude-opus-4-6", output_tokens: 20_000 })).json<any>();
    expect(body.inputs.recall_probability).toBe(0.25);
  });
});
