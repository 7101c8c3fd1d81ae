import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RefreshingCache, type CachePolicy } from "../../src/storage/cache";
import { callWithEnv } from "../support/admin-helpers";
import { bearer, jsonInit, postGate, postJson, putRow, resetState } from "../support/helpers";

const POLICY: CachePolicy = { ttlMs: 60_000, budgetMs: 100, maxStaleMs: 0 };
const noWait = () => undefined;
const load = (value: string | null) => async () => value;

describe("the isolate's cache evicts the least recently used value", () => {
  it("keeps a value read since, and evicts the one not read", async () => {
    const cache = new RefreshingCache<string>({ maxEntries: 3 });
    for (const key of ["a", "b", "c"]) await cache.read(key, load(key) as () => Promise<string>, POLICY, noWait);
    await cache.read("a", load("a") as () => Promise<string>, POLICY, noWait);
    await cache.read("d", load("d") as () => Promise<string>, POLICY, noWait);
    expect(cache.peek("a")).toBe("a");
    expect(cache.peek("b")).toBeUndefined();
    expect(cache.peek("d")).toBe("d");
  });

  it("never lets a negative value evict a positive one", async () => {
    const cache = new RefreshingCache<string | null>({
      maxEntries: 2,
      maxNegative: 2,
      isNegative: (value) => value === null,
    });
    await cache.read("row-1", load("1"), POLICY, noWait);
    await cache.read("row-2", load("2"), POLICY, noWait);
    for (let index = 0; index < 50; index++) await cache.read(`unknown-${index}`, load(null), POLICY, noWait);
    expect(cache.peek("row-1")).toBe("1");
    expect(cache.peek("row-2")).toBe("2");
    expect(cache.size).toBe(4);
    expect(cache.peek("unknown-49")).toBeNull();
    expect(cache.peek("unknown-0")).toBeUndefined();
  });
});

describe("batches of unknown names", () => {
  beforeEach(async () => {
    await resetState();
    await putRow("gpt-5", { input: 1.25, output: 10 });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("cannot flush a cached real row: 25 batches of 100 distinct unknown names later it is served with no KV read", async () => {
    const big = { model_name: "gpt-5", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };
    expect((await (await postGate(big)).json<any>()).reason_code).toBe("net_positive");
    for (let batch = 0; batch < 25; batch++) {
      const items = Array.from({ length: 100 }, (_, index) => ({
        model_name: `made-up-${batch}-${index}`,
        output_tokens: 20_000,
      }));
      expect((await postJson("/v1/gate/batch", { items })).status).toBe(200);
    }
    const get = vi.spyOn(env.PRICING, "get");
    expect((await (await postGate(big)).json<any>()).reason_code).toBe("net_positive");
    expect(get.mock.calls.map((args) => args[0])).not.toContain("pricing:gpt-5");
  }, 60_000);

  it("counts each further distinct model of a batch against the tenant's limit", async () => {
    // TEST_TIGHT_LIMITER allows 3 per 60 s; a fresh tenant each run.
    const run = crypto.randomUUID().slice(0, 8);
    const overrides = {
      GATE_RATE_LIMITER: env.TEST_TIGHT_LIMITER,
      GATE_API_KEYS: `batcher-${run}:key-${run}-0123456789abcdef`,
    };
    const items = ["a", "b", "c", "d"].map((name) => ({ model_name: `model-${name}`, output_tokens: 20_000 }));
    const res = await callWithEnv(
      overrides,
      "/v1/gate/batch",
      jsonInit("POST", { items }, bearer(`key-${run}-0123456789abcdef`)),
    );
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
  });

  it("counts a batch of one model once", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const overrides = {
      GATE_RATE_LIMITER: env.TEST_TIGHT_LIMITER,
      GATE_API_KEYS: `single-${run}:key-${run}-0123456789abcdef`,
    };
    const items = Array.from({ length: 50 }, () => ({ model_name: "gpt-5", output_tokens: 20_000 }));
    for (let call = 0; call < 3; call++) {
      const res = await callWithEnv(
        overrides,
        "/v1/gate/batch",
        jsonInit("POST", { items }, bearer(`key-${run}-0123456789abcdef`)),
      );
      expect(res.status).toBe(200);
    }
  });
});
