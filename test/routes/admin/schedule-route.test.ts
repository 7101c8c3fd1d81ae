import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { pricingCacheStats } from "../../../src/storage/read";
import { adminCall } from "../../support/admin-helpers";
import { postGate, postJson, putRow, resetState } from "../../support/helpers";

const ASK = { output_tokens: 20_000, horizon: 4, recall_probability: 0.25 };
const CHANGE = "2027-01-01T00:00:00Z";
const FLASH = {
  input: 0.75,
  output: 3.75,
  cache_read: 0.075,
  provider: "google",
  scheduled: [{ effective_at: CHANGE, input: 1.5, output: 7.5, cache_read: 0.15 }],
};

/** Runs `work` with the isolate's clock at `instant`: the route reads it once per request. */
async function at<T>(instant: string | number, work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(instant));
  try {
    return await work();
  } finally {
    vi.useRealTimers();
  }
}

async function gateAt(instant: string | number, body: object = { model_name: "gemini-3.8-flash", ...ASK }) {
  const res = await at(instant, () => postGate(body));
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

beforeEach(async () => {
  await resetState();
  await putRow("gemini-3.8-flash", FLASH);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("POST /v1/gate: scheduled prices", () => {
  it("switches price at the change's instant, not a millisecond before, and says which prices priced it", async () => {
    const written = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const before = await gateAt(Date.parse(CHANGE) - 1);
    const after = await gateAt(CHANGE);
    expect(before.priced_as).toEqual({
      model: "gemini-3.8-flash",
      input: 0.75,
      output: 3.75,
      cache_read: 0.075,
      provider: "google",
      resolved_from: "exact",
      price_effective_at: null,
    });
    expect(after.priced_as).toEqual({
      model: "gemini-3.8-flash",
      input: 1.5,
      output: 7.5,
      cache_read: 0.15,
      provider: "google",
      resolved_from: "exact",
      price_effective_at: CHANGE,
    });
    expect(before.reprefill_saving_usd).toBeCloseTo(20_000 * 0.75e-6 * 4, 12);
    expect(after.reprefill_saving_usd).toBeCloseTo(20_000 * 1.5e-6 * 4, 12);
    // The data point records the change in force (blob14), "" for the row's own prices.
    expect(written.mock.calls.map((call) => call[0]?.blobs?.[13])).toEqual(["", CHANGE]);
  });

  it("loads the row once for both sides of the change: the schedule is built at cache fill, not per request", async () => {
    await gateAt(Date.parse(CHANGE) - 1000);
    const loads = pricingCacheStats().rows.loads;
    await gateAt(Date.parse(CHANGE) - 1);
    await gateAt(CHANGE);
    expect(pricingCacheStats().rows.loads).toBe(loads);
  });

  it("prices a batch, a curve and a clearing plan at the same change", async () => {
    const batch = await at(CHANGE, () =>
      postJson("/v1/gate/batch", { items: [{ model_name: "gemini-3.8-flash", ...ASK }] }),
    );
    expect((await batch.json<any>()).decisions[0].priced_as.price_effective_at).toBe(CHANGE);
    const curve = await at(CHANGE, () =>
      postJson("/v1/gate/curve", { request: { model_name: "gemini-3.8-flash", ...ASK }, points: 3 }),
    );
    expect((await curve.json<any>()).priced_as).toMatchObject({ input: 1.5, price_effective_at: CHANGE });
    const plan = await at(Date.parse(CHANGE) - 1, () =>
      postJson("/v1/plan", {
        model_name: "gemini-3.8-flash",
        segments: [{ tokens: 8_000 }, { id: "c1", tokens: 42_000 }],
      }),
    );
    expect((await plan.json<any>()).priced_as).toMatchObject({ input: 0.75, price_effective_at: null });
  });

  it("prices a retired model's replacement at the replacement's prices in force", async () => {
    await putRow("gemini-2.5-flash", {
      input: 0.3,
      output: 2.5,
      cache_read: 0.03,
      retires_at: "2026-12-01",
      replaced_by: "gemini-3.8-flash",
    });
    const body = await gateAt(CHANGE, { model_name: "gemini-2.5-flash", ...ASK });
    expect(body.priced_as).toMatchObject({ model: "gemini-3.8-flash", input: 1.5, price_effective_at: CHANGE });
  });
});

describe("PUT /v1/admin/pricing: scheduled changes", () => {
  const put = (model: string, row: unknown) => adminCall("PUT", `/v1/admin/pricing/${model}`, row);

  it("keeps a row's scheduled changes as written, and reads them back", async () => {
    const res = await put("gemini-3.7-flash", FLASH);
    expect(res.status).toBe(200);
    const stored = await (await adminCall("GET", "/v1/admin/pricing/gemini-3.7-flash")).json<any>();
    expect(stored.row.scheduled).toEqual(FLASH.scheduled);
  });

  it.each([
    [
      [
        { effective_at: "2027-02-01T00:00:00Z", input: 2 },
        { effective_at: "2027-01-01T00:00:00Z", input: 3 },
      ],
      "scheduled.1.effective_at",
      "must be after scheduled.0.effective_at",
    ],
    [
      [
        { effective_at: "2027-01-01T00:00:00Z", input: 2 },
        { effective_at: "2027-01-01T01:00:00+01:00", input: 3 },
      ],
      "scheduled.1.effective_at",
      "repeats the instant of scheduled.0.effective_at",
    ],
    [[{ effective_at: "2027-01-01T00:00:00Z" }], "scheduled.0", "must change at least one price"],
    [[{ effective_at: "2027-01-01", input: 2 }], "scheduled.0.effective_at", "must be an ISO instant"],
    [[{ effective_at: "2027-01-01T00:00:00Z", input: -1 }], "scheduled.0.input", "must not be negative"],
    [[{ effective_at: "2027-01-01T00:00:00Z", inptu: 2 }], "scheduled.0.inptu", "is not a known field"],
    [
      [{ effective_at: "2027-01-01T00:00:00Z", long_context: { input: 2 } }],
      "scheduled.0.long_context.threshold_tokens",
      "is required",
    ],
  ])("refuses %j with a 400 naming %s", async (scheduled, path, message) => {
    const res = await put("gemini-x", { input: 1, output: 2, cache_read: 0.1, scheduled });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.issues).toContainEqual(
      expect.objectContaining({ path, message: expect.stringContaining(message) }),
    );
  });

  it("refuses cache prices on a row that says it has no prompt cache", async () => {
    const res = await put("no-cache", { input: 1, output: 2, cache_read: 0.1, prompt_cache: false });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues).toContainEqual(
      expect.objectContaining({ path: "cache_read", message: "must be left out: prompt_cache is false" }),
    );
  });

  it("warns about a row without cache_read, unless it says it has no prompt cache", async () => {
    const warned = await (await put("gemini-3.5-flash", { input: 1.5, output: 9 })).json<any>();
    expect(warned.warnings).toContainEqual(
      expect.objectContaining({ path: "cache_read", message: expect.stringContaining("pricing_incomplete") }),
    );
    const quiet = await (await put("no-cache", { input: 1.5, output: 9, prompt_cache: false })).json<any>();
    expect(quiet.warnings).toEqual([]);
  });
});

describe("POST /v1/gate: the gap rule over HTTP", () => {
  it("does not fire on a row without cache_read at q > 0, names the field, and still reports the terms", async () => {
    await putRow("gemini-3.5-flash", { input: 1.5, output: 9, provider: "google" });
    const body = await gateAt(Date.now(), {
      model_name: "gemini-3.5-flash",
      ...ASK,
      pricing_mode: "cache_aware",
      cache_hit_rate: 0.9,
      context_tokens: 60_000,
    });
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_incomplete", break_even_horizon: null });
    expect(body.reason).toMatch(/^pricing incomplete: gemini-3\.5-flash has no cache_read price and q=0\.90 > 0/);
    expect(body.reprefill_saving_usd).toBeGreaterThan(0);
    expect(body.net_saving_usd).not.toBe(0);
    // The seed mode prices no cache: unchanged.
    const seed = await gateAt(Date.now(), { model_name: "gemini-3.5-flash", ...ASK });
    expect(seed.reason_code).toBe("net_positive");
  });

  it("prices a row with prompt_cache false at q = 0", async () => {
    await putRow("no-cache", { input: 1.5, output: 9, prompt_cache: false });
    const body = await gateAt(Date.now(), {
      model_name: "no-cache",
      ...ASK,
      pricing_mode: "cache_aware",
      cache_hit_rate: 0.9,
    });
    expect(body.reason_code).toBe("net_positive");
    expect(body.reason).toContain("q=0.00");
    expect(body.inputs.cache_hit_rate).toBe(0.9);
  });

  it("makes a clearing plan stub nothing on such a row", async () => {
    await putRow("gemini-3.5-flash", { input: 1.5, output: 9 });
    const res = await postJson("/v1/plan", {
      model_name: "gemini-3.5-flash",
      segments: [{ tokens: 8_000 }, { id: "c1", tokens: 42_000 }],
    });
    expect(await res.json<any>()).toMatchObject({ reason_code: "pricing_incomplete", stub: [] });
  });
});
