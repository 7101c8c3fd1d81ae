import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EXAMPLE_A, OPUS, postGate, putAlias, putGateConfig, putRow, resetState } from "../support/helpers";

type Decision = Record<string, any>;
const decide = async (body: unknown = EXAMPLE_A) => (await postGate(body)).json<Decision>();

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-11-30T12:00:00Z"));
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const pricingReads = (get: { mock: { calls: unknown[][] } }) =>
  get.mock.calls.filter(([key]) => String(key).startsWith("pricing:")).length;

describe("the isolate's pricing cache", () => {
  it("reads a row from KV once, then serves it with no KV read", async () => {
    const get = vi.spyOn(env.PRICING, "get");
    await decide();
    await decide();
    await decide();
    expect(pricingReads(get)).toBe(1);
  });

  it("caches unknown models too", async () => {
    const get = vi.spyOn(env.PRICING, "get");
    await decide({ ...EXAMPLE_A, model_name: "mystery-model-9" });
    const afterFirst = get.mock.calls.length;
    const second = await decide({ ...EXAMPLE_A, model_name: "mystery-model-9" });
    expect(second.reason_code).toBe("unpriced");
    expect(get.mock.calls.length).toBe(afterFirst);
  });

  it("serves a row updated in KV once the TTL has passed", async () => {
    expect((await decide()).reprefill_saving_usd).toBe(0.4);
    await putRow("claude-opus-4-6", { ...OPUS, input: 10 });
    vi.setSystemTime(new Date("2026-11-30T12:00:30Z"));
    expect((await decide()).reprefill_saving_usd).toBe(0.4);
    vi.setSystemTime(new Date("2026-11-30T12:01:01Z"));
    const after = await decide();
    expect(after.reprefill_saving_usd).toBe(0.8);
    expect(after.priced_as.input).toBe(10);
    expect(after.stale_pricing).toBeNull();
  });

  it("takes its TTL from config:gate", async () => {
    await putGateConfig({ pricing_cache_ttl_seconds: 5 });
    await decide();
    await putRow("claude-opus-4-6", { ...OPUS, input: 10 });
    vi.setSystemTime(new Date("2026-11-30T12:00:06Z"));
    expect((await decide()).priced_as.input).toBe(10);
  });
});

describe("when KV fails", () => {
  it("answers pricing_unavailable, never fire, for a model the isolate does not hold", async () => {
    await decide({ ...EXAMPLE_A, output_tokens: 1 }); // warms the config only
    vi.spyOn(env.PRICING, "get").mockRejectedValue(new Error("KV is down"));
    const body = await decide();
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable", net_saving_usd: 0, priced_as: null });
    expect(body.reason).toBe("pricing unavailable for 'claude-opus-4-6': KV read failed: KV is down");
  });

  it("serves a held row past its TTL as stale, and says so", async () => {
    await decide();
    vi.setSystemTime(new Date("2026-11-30T12:02:00Z"));
    vi.spyOn(env.PRICING, "get").mockRejectedValue(new Error("KV is down"));
    const body = await decide();
    expect(body.fire).toBe(true);
    expect(body.reason_code).toBe("net_positive");
    expect(body.stale_pricing).toEqual({ age_seconds: 120, detail: "KV read failed: KV is down" });
  });

  it("stops serving a stale row after pricing_max_stale_seconds", async () => {
    await decide();
    vi.setSystemTime(new Date("2026-11-30T14:00:00Z"));
    vi.spyOn(env.PRICING, "get").mockRejectedValue(new Error("KV is down"));
    const body = await decide();
    expect(body.reason_code).toBe("pricing_unavailable");
    expect(body.fire).toBe(false);
  });
});

describe("rows the gate cannot trust", () => {
  it.each([
    ["is not JSON", "{input: 5", "pricing:claude-opus-4-6 is not valid JSON"],
    ["has a negative price", JSON.stringify({ input: -5, output: 25 }), "input: must not be negative"],
    ["lacks its output price", JSON.stringify({ input: 5 }), "output: is required"],
    ["has an unknown field", JSON.stringify({ ...OPUS, inptu: 5 }), "inptu"],
    ["is oversized", JSON.stringify({ ...OPUS, source: `https://x.test/${"a".repeat(20_000)}` }), "oversized"],
  ])("never fires on a row that %s, says why, and logs it once", async (_what, stored, detail) => {
    await putRow("claude-opus-4-6", stored);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const first = await decide();
    const second = await decide();
    for (const body of [first, second]) {
      expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable", priced_as: null });
      expect(body.reason).toContain(detail);
    }
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("never fires on an alias whose target has no row", async () => {
    await putAlias("opus-latest", "claude-opus-9");
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const body = await decide({ ...EXAMPLE_A, model_name: "opus-latest" });
    expect(body.reason_code).toBe("pricing_unavailable");
    expect(body.reason).toContain("alias:opus-latest points to claude-opus-9, which has no pricing row");
  });

  it("never fires when config:gate is invalid, rather than guess at priors", async () => {
    await putGateConfig({ p_recal: 0.1 });
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const body = await decide();
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable" });
    expect(body.reason).toContain("config:gate is invalid");
    expect(body.reason).toContain("p_recal");
  });
});
