import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SONNET_45 } from "../../fixtures/rows";
import { EXAMPLE_A, OPUS, postGate, putGateConfig, putRow, resetState } from "../../support/helpers";

/** Design note, example 2. */
const EXAMPLE_2 = { model_name: "claude-opus-4-6", output_tokens: 12_000, horizon: 2, recall_probability: 0.5 };

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await putRow("claude-sonnet-4-5", SONNET_45);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("POST /v1/gate in seed mode", () => {
  it("keeps the reference's values and adds the mode, a zero premium and the break-evens", async () => {
    const body = await (await postGate(EXAMPLE_A)).json<any>();
    expect(body).toMatchObject({
      fire: true,
      net_saving_usd: 0.38925000000000004,
      reason: "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
      reason_code: "net_positive",
      pricing_mode: "seed",
      context_premium_saving_usd: 0,
      break_even_horizon: 1,
      break_even_output_tokens: 10_000,
    });
    expect(body.inputs).not.toHaveProperty("cache_hit_rate");
    expect(body.inputs).not.toHaveProperty("context_tokens");
  });

  it("fires on worked example 2, as the reference does", async () => {
    const body = await (await postGate({ ...EXAMPLE_2, pricing_mode: "seed" })).json<any>();
    expect(body.fire).toBe(true);
    expect(body.net_saving_usd).toBeCloseTo(0.10675, 12);
  });

  it("answers 400 naming cache_hit_rate and context_tokens when the mode is seed, rather than ignore them", async () => {
    const res = await postGate({ ...EXAMPLE_A, pricing_mode: "seed", cache_hit_rate: 0.5, context_tokens: 1_000 });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.issues.map((issue: { path: string }) => issue.path)).toEqual([
      "cache_hit_rate",
      "context_tokens",
    ]);
    expect(body.error.issues[0].message).toBe(
      'only applies when pricing_mode is "cache_aware"; pricing_mode is "seed"',
    );
  });

  it("says the seed came from config:gate when the request left pricing_mode out", async () => {
    const res = await postGate({ ...EXAMPLE_A, context_tokens: 1_000 });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.message).toBe(
      'context_tokens only applies when pricing_mode is "cache_aware"; pricing_mode is "seed" (the default in config:gate)',
    );
  });

  it("appends the cache-aware doubles to its data point: zero premium, q and P, then the break-evens", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    await postGate(EXAMPLE_A);
    await postGate({ ...EXAMPLE_A, model_name: "mystery-model-9" });
    const [priced, unpriced] = write.mock.calls.map((args) => args[0] as AnalyticsEngineDataPoint);
    expect(priced?.blobs?.[3]).toBe("seed");
    expect(priced?.doubles?.slice(13, 18)).toEqual([0, 0, 0, 1, 10_000]);
    // null break-evens are recorded as -1.
    expect(unpriced?.doubles?.slice(13, 18)).toEqual([0, 0, 0, -1, -1]);
  });

  it("gives null break-evens to a decision it did not price", async () => {
    for (const request of [
      { ...EXAMPLE_A, output_tokens: 600 },
      { ...EXAMPLE_A, model_name: "mystery-model-9" },
    ]) {
      const body = await (await postGate(request)).json<any>();
      expect(body.break_even_horizon).toBeNull();
      expect(body.break_even_output_tokens).toBeNull();
      expect(body.context_premium_saving_usd).toBe(0);
    }
  });
});

describe("POST /v1/gate in cache_aware mode", () => {
  it("does not fire on worked example 2: the cache shrinks the saving below the recall hop", async () => {
    const res = await postGate({
      ...EXAMPLE_2,
      pricing_mode: "cache_aware",
      cache_hit_rate: 0.9,
      context_tokens: 150_000,
    });
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({ fire: false, reason_code: "net_not_positive", pricing_mode: "cache_aware" });
    expect(body.net_saving_usd).toBeCloseTo(-0.00669, 12);
    expect(body.reason).toBe(
      "net=$-0.0067 (saving=$0.0879 + premium=$0.0000 − stub=$0.0015 − recall=$0.0931); " +
        "H=2 p_recall=0.50 q=0.90 context=150000 tier=none mode=cache_aware model=claude-opus-4-6",
    );
    expect(body.break_even_horizon).toBe(3);
    expect(body.inputs).toMatchObject({ cache_hit_rate: 0.9, context_tokens: 150_000 });
  });

  it("fires on worked example 3 on the long-context premium of a row's tier", async () => {
    const body = await (
      await postGate({
        ...EXAMPLE_A,
        model_name: "claude-sonnet-4-5",
        pricing_mode: "cache_aware",
        context_tokens: 190_000,
      })
    ).json<any>();
    expect(body.fire).toBe(true);
    expect(body.context_premium_saving_usd).toBeCloseTo(0.4902, 12);
    expect(body.net_saving_usd).toBeCloseTo(0.675198, 12);
    expect(body.reason).toContain("tier=keep");
  });

  it("takes q from the cache_hit_rate prior and P = 0 when they are left out", async () => {
    const body = await (await postGate({ ...EXAMPLE_A, pricing_mode: "cache_aware" })).json<any>();
    expect(body.inputs).toMatchObject({ cache_hit_rate: 0.9, context_tokens: 0 });
    expect(body.reason).toContain("q=0.90 context=0 tier=none mode=cache_aware");
  });

  it("is the default when config:gate says so, with config's own q", async () => {
    await putGateConfig({ pricing_mode: "cache_aware", cache_hit_rate: 0.5 });
    const body = await (await postGate(EXAMPLE_A)).json<any>();
    expect(body.pricing_mode).toBe("cache_aware");
    expect(body.inputs.cache_hit_rate).toBe(0.5);
    // A caller can still ask for the reference explicitly.
    const seed = await (await postGate({ ...EXAMPLE_A, pricing_mode: "seed" })).json<any>();
    expect(seed.net_saving_usd).toBe(0.38925000000000004);
  });

  it("does not fire when config:gate names an unknown pricing_mode, rather than guess", async () => {
    await putGateConfig({ pricing_mode: "cheap", cache_hit_rate: 0.9 });
    const body = await (await postGate(EXAMPLE_A)).json<any>();
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable" });
    expect(body.reason).toContain("pricing_mode");
  });

  it("prices a row without cache prices at its input price, never 0", async () => {
    await putRow("plain-model", { input: 5, output: 25 });
    const body = await (
      await postGate({ ...EXAMPLE_A, model_name: "plain-model", pricing_mode: "cache_aware" })
    ).json<any>();
    // read = write = input and P = 0: exactly the reference's numbers.
    expect(body.net_saving_usd).toBe(0.38925000000000004);
    expect(body.reprefill_saving_usd).toBe(0.4);
  });

  it.each([
    [{ pricing_mode: "cached" }, "pricing_mode", 'must be "seed" or "cache_aware"'],
    [{ pricing_mode: "cache_aware", cache_hit_rate: 1.5 }, "cache_hit_rate", "must be between 0 and 1"],
    [{ pricing_mode: "cache_aware", cache_hit_rate: "high" }, "cache_hit_rate", "must be a number"],
    [{ pricing_mode: "cache_aware", context_tokens: -1 }, "context_tokens", "must be an integer ≥ 0"],
    [{ pricing_mode: "cache_aware", context_tokens: 1.5 }, "context_tokens", "must be an integer ≥ 0"],
  ])("answers 400 for %j, naming %s", async (extra, path, message) => {
    const res = await postGate({ ...EXAMPLE_A, ...extra });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.issues).toEqual([{ path, message }]);
  });

  it("never fires, and does not refuse its fields, when config:gate cannot be read", async () => {
    await putGateConfig("{not json");
    const res = await postGate({ ...EXAMPLE_A, cache_hit_rate: 0.5, context_tokens: 10 });
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable", pricing_mode: "cache_aware" });
  });

  it("records the mode and the cache-aware numbers in its data point", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    await postGate({
      ...EXAMPLE_A,
      model_name: "claude-sonnet-4-5",
      pricing_mode: "cache_aware",
      context_tokens: 190_000,
    });
    expect(write).toHaveBeenCalledTimes(1);
    const point = write.mock.calls[0]?.[0] as AnalyticsEngineDataPoint;
    expect(point.blobs?.[3]).toBe("cache_aware");
    const doubles = point.doubles as number[];
    expect(doubles).toHaveLength(20);
    expect(doubles[13]).toBeCloseTo(0.4902, 12); // double14: context premium
    expect(doubles.slice(14, 18)).toEqual([0.9, 190_000, 1, expect.any(Number)]); // q, P, break-evens
    expect(doubles[19]).toBe(0); // double20: no suffix rewrite on entry
    expect(point.blobs?.slice(9, 12)).toEqual(["entry", "5m", ""]); // placement, TTL, no ranges
  });
});
