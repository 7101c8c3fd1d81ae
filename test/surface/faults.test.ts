import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { evaluateOffloadGate } from "../../src/gate";
import { rememberRow } from "../../src/storage/read";
import { EXAMPLE_A, OPUS, putGateConfig, putRow } from "../support/helpers";
import {
  MODEL,
  TTL_MS,
  advanceClock,
  decide,
  failPricingReads,
  holdPricingReads,
  useFaultState,
  warm,
} from "./faults-support";

useFaultState();

describe("when KV get throws", () => {
  it("serves a held model from its stale row and flags the row's age", async () => {
    await warm();
    advanceClock(TTL_MS + 30_000);
    failPricingReads();
    const body = await decide();
    const expected = evaluateOffloadGate(EXAMPLE_A, OPUS);
    expect(body).toMatchObject({ ...expected, reason_code: "net_positive", priced_as: { model: MODEL, ...OPUS } });
    expect(body.stale_pricing.age_seconds).toBeGreaterThanOrEqual(90);
    expect(body.stale_pricing.age_seconds).toBeLessThan(91);
    expect(body.stale_pricing.detail).toBe("KV read failed: KV GET failed: 503 Service Unavailable");
  });

  it("answers pricing_unavailable for a cold model and says why", async () => {
    failPricingReads();
    const body = await decide();
    expect(body).toMatchObject({
      fire: false,
      net_saving_usd: 0,
      reason_code: "pricing_unavailable",
      priced_as: null,
      stale_pricing: null,
    });
    expect(body.reason).toBe(
      `pricing unavailable for '${MODEL}': KV read failed: KV GET failed: 503 Service Unavailable`,
    );
  });

  it("stops serving a held row once it is older than pricing_max_stale_seconds", async () => {
    await putGateConfig({ pricing_max_stale_seconds: 120 });
    await warm();
    advanceClock(TTL_MS + 121_000);
    failPricingReads();
    const body = await decide();
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable", stale_pricing: null });
  });

  it("answers pricing_unavailable when the config cannot be read either, rather than guess at priors", async () => {
    vi.spyOn(env.PRICING, "get").mockRejectedValue(new Error("KV is down"));
    const body = await decide();
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable" });
    expect(body.reason).toContain("config:gate unavailable: KV read failed: KV is down");
  });
});

describe("when KV get hangs", () => {
  it("answers a cold model within the default 100 ms budget, before the read returns", async () => {
    const kv = holdPricingReads();
    const body = await decide();
    // The read is still held: the answer did not wait for it.
    expect(kv.held).toEqual([`pricing:${MODEL}`]);
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable", stale_pricing: null });
    expect(body.reason).toBe(`pricing unavailable for '${MODEL}': KV read timed out after 100 ms`);
    kv.release();
  });

  it("bounds the wait by config:gate's kv_budget_ms", async () => {
    await putGateConfig({ kv_budget_ms: 25 });
    const kv = holdPricingReads();
    const body = await decide();
    expect(body.reason).toBe(`pricing unavailable for '${MODEL}': KV read timed out after 25 ms`);
    kv.release();
  });

  it("serves a held model from its stale row when the refresh runs out of budget", async () => {
    await warm();
    advanceClock(TTL_MS + 5_000);
    const kv = holdPricingReads();
    const body = await decide();
    expect(body).toMatchObject({ fire: true, reason_code: "net_positive", priced_as: { model: MODEL } });
    expect(body.stale_pricing).toEqual({ age_seconds: 65, detail: "KV read timed out after 100 ms" });
    kv.release();
  });

  it("lets the slow read finish in the background and serves its row afterwards", async () => {
    await warm();
    advanceClock(TTL_MS + 5_000);
    const kv = holdPricingReads();
    await putRow(MODEL, { ...OPUS, input: 6 });
    expect((await decide()).stale_pricing).not.toBeNull();
    kv.release();
    await vi.waitFor(async () => {
      const body = await decide();
      expect(body.stale_pricing).toBeNull();
      expect(body.priced_as.input).toBe(6);
    });
    expect(kv.held).toEqual([`pricing:${MODEL}`]);
  });

  it("keeps at most one read in flight per key while a cold model's read hangs", async () => {
    const kv = holdPricingReads();
    const bodies = await Promise.all(Array.from({ length: 20 }, () => decide()));
    expect(bodies.every((body) => body.reason_code === "pricing_unavailable")).toBe(true);
    expect(kv.held).toEqual([`pricing:${MODEL}`]);
    kv.release();
  });

  it("keeps at most one read in flight per key while an expired row's refresh hangs", async () => {
    await warm();
    advanceClock(TTL_MS + 1_000);
    const kv = holdPricingReads();
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => decide()));
    const sequential = [];
    for (let i = 0; i < 10; i++) sequential.push(await decide());
    for (const body of [...concurrent, ...sequential]) {
      expect(body.reason_code).toBe("net_positive");
      expect(body.stale_pricing.detail).toBe("KV read timed out after 100 ms");
    }
    expect(kv.held).toEqual([`pricing:${MODEL}`]);
    kv.release();
  });

  it("starts one background refresh ahead of expiry and keeps serving the fresh row meanwhile", async () => {
    await warm();
    advanceClock(TTL_MS * 0.8);
    const kv = holdPricingReads();
    for (let i = 0; i < 10; i++) {
      const body = await decide();
      expect(body.stale_pricing).toBeNull();
      expect(body.priced_as.model).toBe(MODEL);
    }
    expect(kv.held).toEqual([`pricing:${MODEL}`]);
    kv.release();
  });
});

describe("a write this isolate takes while a read is in flight", () => {
  it("is not overwritten by the older row that read brings back", async () => {
    const kv = holdPricingReads();
    expect((await decide()).reason_code).toBe("pricing_unavailable");
    // What the admin API does after it writes: serve the new row at once.
    rememberRow(MODEL, { ...OPUS, input: 6 });
    kv.release();
    // Give the released read time to land; it must not replace the written row.
    await vi.waitFor(() => expect(kv.returned).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await decide()).priced_as.input).toBe(6);
  });
});

describe("when Analytics Engine throws", () => {
  it("still returns the decision, and logs the failed write", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint").mockImplementation(() => {
      throw new Error("Analytics Engine is unavailable");
    });
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const body = await decide();
    expect(body).toMatchObject({ ...evaluateOffloadGate(EXAMPLE_A, OPUS), reason_code: "net_positive" });
    expect(write).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith("offload-gate: Analytics Engine write failed", "Analytics Engine is unavailable");
  });
});
