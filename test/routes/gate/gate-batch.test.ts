import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_BODY_BYTES } from "../../../src/http/guards";
import { callWithEnv } from "../../support/admin-helpers";
import { bearer, call, EXAMPLE_A, jsonInit, OPUS, postGate, postJson, putRow, resetState } from "../../support/helpers";
import { PROD_KEY, TEST_GATE_API_KEYS } from "../../support/secrets";

const postBatch = (body: unknown) => postJson("/v1/gate/batch", body);

const CACHE_AWARE = {
  model_name: "claude-opus-4-6",
  output_tokens: 12_000,
  horizon: 2,
  recall_probability: 0.5,
  pricing_mode: "cache_aware",
  context_tokens: 150_000,
};
const UNPRICED = { model_name: "mystery-model-9", output_tokens: 20_000 };
const BELOW = { model_name: "gpt-5", output_tokens: 600 };

/** Item i of the 100-item batch, and what it must come back as. */
function mixed(i: number): { item: unknown; expect: string } {
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
      return { item: { ...EXAMPLE_A, horizon: 1 + (i % 7) }, expect: "net_positive" };
    case 3:
      return { item: CACHE_AWARE, expect: "net_not_positive" };
    case 4:
      return { item: UNPRICED, expect: "unpriced" };
    case 5:
      return { item: BELOW, expect: "below_threshold" };
    case 6:
      return { item: { ...EXAMPLE_A, horizon: -1 }, expect: `error:items.${i}.horizon` };
    case 7:
      return { item: { ...EXAMPLE_A, colour: "red" }, expect: `error:items.${i}.colour` };
    case 8:
      return { item: { ...EXAMPLE_A, cache_hit_rate: 0.5 }, expect: `error:items.${i}.cache_hit_rate` };
    default:
      return { item: "not an object", expect: `error:items.${i}` };
  }
}

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await putRow("gpt-5", { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("POST /v1/gate/batch", () => {
  it("decides 100 mixed items in order, with an error entry for each bad item only", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const cases = Array.from({ length: 100 }, (_, i) => mixed(i));
    const res = await postBatch({ items: cases.map((c) => c.item) });
    expect(res.status).toBe(200);
    const { decisions } = await res.json<{ decisions: any[] }>();
    expect(decisions).toHaveLength(100);
    const got = decisions.map((entry) =>
      "error" in entry ? `error:${entry.error.issues[0].path}` : entry.reason_code,
    );
    expect(got).toEqual(cases.map((c) => c.expect));
    for (const entry of decisions.filter((d) => "error" in d)) {
      expect(entry.error.code).toBe("invalid_request");
      expect(entry.error.issues.length).toBeGreaterThan(0);
    }
    // One data point per decided item: 60 decided, 40 refused.
    expect(write).toHaveBeenCalledTimes(60);
  });

  it("answers each item as POST /v1/gate would", async () => {
    const items = [EXAMPLE_A, CACHE_AWARE, UNPRICED, BELOW];
    const { decisions } = await (await postBatch({ items })).json<{ decisions: unknown[] }>();
    // Every answer has its own decision id; everything else matches.
    const withoutId = ({ decision_id: _id, ...rest }: Record<string, unknown>) => rest;
    for (const [i, item] of items.entries()) {
      expect(withoutId(decisions[i] as Record<string, unknown>)).toEqual(
        withoutId(await (await postGate(item)).json()),
      );
    }
  });

  it("reads each distinct model's pricing once, however many items name it", async () => {
    const get = vi.spyOn(env.PRICING, "get");
    const items = [...Array.from({ length: 30 }, () => EXAMPLE_A), ...Array.from({ length: 30 }, () => UNPRICED)];
    const res = await postBatch({ items });
    expect(res.status).toBe(200);
    const keys = get.mock.calls.map((args) => String(args[0]));
    expect(keys.filter((key) => key === "pricing:claude-opus-4-6")).toHaveLength(1);
    expect(keys.filter((key) => key === "pricing:mystery-model-9")).toHaveLength(1);
    expect(keys.filter((key) => key === "alias:mystery-model-9")).toHaveLength(1);
  });

  it("names the field of an item as items.<index>.<field>, and says why", async () => {
    const { decisions } = await (
      await postBatch({ items: [EXAMPLE_A, { ...EXAMPLE_A, recall_probability: 2, stub_tokens: -5 }] })
    ).json<any>();
    expect(decisions[1]).toEqual({
      error: {
        code: "invalid_request",
        message: "items.1.recall_probability must be between 0 and 1; items.1.stub_tokens must be an integer ≥ 0",
        issues: [
          { path: "items.1.recall_probability", message: "must be between 0 and 1" },
          { path: "items.1.stub_tokens", message: "must be an integer ≥ 0" },
        ],
      },
    });
    expect(decisions[0].fire).toBe(true);
  });

  it("answers an empty batch with no decisions", async () => {
    const res = await postBatch({ items: [] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ decisions: [] });
  });

  it.each([
    [
      "more than 100 items",
      { items: Array.from({ length: 101 }, () => EXAMPLE_A) },
      "items",
      "must hold at most 100 items",
    ],
    ["no items", {}, "items", "is required"],
    ["items that are not an array", { items: EXAMPLE_A }, "items", "must be an array of gate requests"],
    ["an unknown envelope field", { items: [], mode: "fast" }, "mode", "is not a known field"],
    ["a body that is an array", [EXAMPLE_A], "", expect.any(String)],
  ])("answers 400 for %s", async (_what, body, path, message) => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const res = await postBatch(body);
    expect(res.status).toBe(400);
    const error = (await res.json<any>()).error;
    expect(error.code).toBe("invalid_request");
    expect(error.issues).toContainEqual({ path, message });
    expect(write).not.toHaveBeenCalled();
  });

  it("answers 400 invalid_json for a body that does not parse", async () => {
    const res = await postBatch('{"items": [');
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.code).toBe("invalid_json");
  });

  it("fits 100 items with every field at its longest, prior ranges included, within the body limit", async () => {
    const longest = {
      model_name: "m".repeat(128),
      output_tokens: 999_999_999_999.5,
      horizon: 1_000_000,
      recall_probability: 0.123456789012345,
      large_offload_threshold_tokens: 1_000_000_000_000,
      stub_tokens: 1_000_000_000_000,
      recall_input_tokens: 1_000_000_000_000,
      recall_output_tokens: 1_000_000_000_000,
      pricing_mode: "cache_aware",
      cache_hit_rate: 0.123456789012345,
      context_tokens: 1_000_000_000_000,
      offload_at: "retroactive",
      suffix_tokens: 1_000_000_000_000,
      cache_ttl: "1h",
      horizon_range: [1_000_000, 1_000_000],
      recall_probability_range: [0.123456789012345, 0.123456789012345],
      cache_hit_rate_range: [0.123456789012345, 0.123456789012345],
    };
    const text = JSON.stringify({ items: Array.from({ length: 100 }, () => longest) });
    expect(text.length).toBeGreaterThan(64 * 1024); // why the limit is 96 KiB
    expect(text.length).toBeLessThan(MAX_BODY_BYTES);
    const res = await postBatch(text);
    expect(res.status).toBe(200);
    expect((await res.json<any>()).decisions).toHaveLength(100);
  });

  it("answers 413 for a body over 96 KiB", async () => {
    const res = await postBatch(
      JSON.stringify({ items: [{ ...EXAMPLE_A, model_name: "x" }], pad: "x".repeat(MAX_BODY_BYTES) }),
    );
    expect(res.status).toBe(413);
  });

  it("requires a gate key when GATE_API_KEYS is set, and records each item under the key's tenant", async () => {
    const keyed = { GATE_API_KEYS: TEST_GATE_API_KEYS };
    const body = { items: [EXAMPLE_A, UNPRICED, { ...EXAMPLE_A, horizon: -1 }] };
    expect((await callWithEnv(keyed, "/v1/gate/batch", jsonInit("POST", body))).status).toBe(401);
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const res = await callWithEnv(keyed, "/v1/gate/batch", jsonInit("POST", body, bearer(PROD_KEY)));
    expect(res.status).toBe(200);
    const points = write.mock.calls.map(([point]) => point as AnalyticsEngineDataPoint);
    expect(points.map((point) => point.indexes?.[0])).toEqual(["agents-prod", "agents-prod"]);
  });

  it("answers 405 with Allow: POST for another method", async () => {
    const res = await call("/v1/gate/batch", { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});
