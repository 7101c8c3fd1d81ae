import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { evaluateOffloadGate } from "../../src/gate";
import type { PricingRow } from "../../src/store/schema";
import { rememberRow } from "../../src/store/read";
import { adminCall } from "../support/admin-helpers";
import { EXAMPLE_A, OPUS, postGate, putGateConfig, putRow, resetState } from "../support/helpers";

// Fault injection against the real app and the real local KV binding: a
// fault is injected by spying on one method of the binding, never by a fake.

const MODEL = "claude-opus-4-6";
/** The row that races OPUS in the concurrency tests. */
const NEW: PricingRow = { input: 7, output: 40, cache_read: 0.7, cache_write: 8.75, cache_write_1h: 14 };
const TTL_MS = 60_000; // the default pricing_cache_ttl_seconds

// The real get, captured before any spy replaces it, so an injected fault
// can pass the keys it does not target through to KV.
const realGet = env.PRICING.get.bind(env.PRICING) as (key: string) => Promise<string | null>;

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Makes KV get fail for `pricing:` keys and pass the rest through. */
function failPricingReads(error = new Error("KV GET failed: 503 Service Unavailable")) {
  return vi.spyOn(env.PRICING, "get").mockImplementation((async (key: string) => {
    if (key.startsWith("pricing:")) throw error;
    return realGet(key);
  }) as never);
}

/** Makes KV get for `pricing:` keys wait until the test releases it; counts those calls. */
function holdPricingReads() {
  const release = deferred();
  const held: string[] = [];
  const returned: string[] = [];
  const spy = vi.spyOn(env.PRICING, "get").mockImplementation((async (key: string) => {
    if (!key.startsWith("pricing:")) return realGet(key);
    held.push(key);
    await release.promise;
    const value = await realGet(key);
    returned.push(key);
    return value;
  }) as never);
  return { spy, held, returned, release: release.resolve };
}

/** Moves the (faked) wall clock on, so cached rows age without sleeping. */
function advanceClock(ms: number): void {
  vi.setSystemTime(Date.now() + ms);
}

async function decide(body: object = EXAMPLE_A): Promise<any> {
  const res = await postGate(body);
  expect(res.status).toBe(200);
  return res.json();
}

/** Warms the isolate cache with the current rows and config. */
async function warm(): Promise<void> {
  const body = await decide();
  expect(body.stale_pricing).toBeNull();
  expect(body.priced_as.model).toBe(MODEL);
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  await resetState();
  await putRow(MODEL, OPUS);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

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

describe("a corrupt or oversized row", () => {
  const cases: [string, string, string][] = [
    ["not JSON", '{"input": 5, "output":', "pricing:broken-model is not valid JSON"],
    [
      "over 16 KiB",
      JSON.stringify({ input: 5, output: 25, provider: "x".repeat(17_000) }),
      "pricing:broken-model is oversized (17037 bytes > 16384)",
    ],
    [
      "against the schema",
      JSON.stringify({ input: -5, output: 25 }),
      "pricing:broken-model is invalid: input: must not be negative",
    ],
  ];

  it.each(cases)(
    "answers pricing_unavailable for a row %s, and logs it once, not once per request",
    async (_what, text, detail) => {
      await putRow("broken-model", text);
      const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const bodies = await Promise.all(
        Array.from({ length: 5 }, () => decide({ ...EXAMPLE_A, model_name: "broken-model" })),
      );
      for (let i = 0; i < 20; i++) bodies.push(await decide({ ...EXAMPLE_A, model_name: "broken-model" }));
      for (const body of bodies) {
        expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable", priced_as: null });
        expect(body.reason).toBe(`pricing unavailable for 'broken-model': ${detail}`);
      }
      expect(warn.mock.calls).toEqual([[`offload-gate: ${detail}`]]);
    },
  );

  it("logs a corrupt config:gate once and does not fire while it stays corrupt", async () => {
    await putGateConfig('{"p_recall": 7}');
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    for (let i = 0; i < 10; i++) {
      const body = await decide();
      expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable" });
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain("config:gate is invalid: p_recall");
  });
});

describe("concurrent price writes while gates read", () => {
  it("prices every answer by exactly the old row or the new one, never a mix", async () => {
    // A 1 s TTL and a clock moved on each round make every round re-read KV
    // while a write to the same key is in flight.
    await putGateConfig({ pricing_cache_ttl_seconds: 1 });
    const seen = new Set<string>();
    for (let round = 0; round < 12; round++) {
      advanceClock(1_500);
      const row = round % 2 === 0 ? NEW : OPUS;
      const requests = Array.from({ length: 8 }, (_, i) => ({
        ...EXAMPLE_A,
        output_tokens: 12_000 + 1_000 * i + round,
      }));
      const [, ...bodies] = await Promise.all([putRow(MODEL, row), ...requests.map((request) => decide(request))]);
      bodies.forEach((body, i) => seen.add(pricedByOneRow(body, requests[i] as typeof EXAMPLE_A)));
    }
    // Both rows were served, so the check above had something to tell apart.
    expect([...seen].sort()).toEqual(["new", "old"]);
  });

  it("prices every answer by exactly one row while admin PUTs race the reads", async () => {
    const seen = new Set<string>();
    for (let round = 0; round < 10; round++) {
      const row = round % 2 === 0 ? NEW : OPUS;
      const requests = Array.from({ length: 8 }, (_, i) => ({
        ...EXAMPLE_A,
        output_tokens: 12_000 + 1_000 * i + round,
      }));
      const [written, ...bodies] = await Promise.all([
        adminCall("PUT", `/v1/admin/pricing/${MODEL}`, row),
        ...requests.map((request) => decide(request)),
      ]);
      expect(written.status).toBe(200);
      bodies.forEach((body, i) => seen.add(pricedByOneRow(body, requests[i] as typeof EXAMPLE_A)));
      // Once the PUT has answered, this isolate serves the row it wrote.
      expect(canonical(omitModel((await decide()).priced_as))).toBe(canonical(row));
    }
    expect([...seen].sort()).toEqual(["new", "old"]);
  });
});

/** A row's JSON with its keys sorted, so two rows compare by content. */
function canonical(row: object): string {
  return JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));
}

function omitModel({
  model: _model,
  price_effective_at: _at,
  ...prices
}: {
  model: string;
  price_effective_at?: string | null;
}): object {
  return prices;
}

/**
 * Checks that one answer was priced by exactly one of the two rows, every
 * term and the reason to the last bit, and says which.
 */
function pricedByOneRow(body: any, request: typeof EXAMPLE_A): "new" | "old" {
  const { model, price_effective_at: effectiveAt, ...prices } = body.priced_as;
  expect(model).toBe(MODEL);
  // Neither row has scheduled changes: their own prices priced it.
  expect(effectiveAt).toBeNull();
  const match = [OPUS, NEW].filter((candidate) => canonical(candidate) === canonical(prices));
  expect(match).toHaveLength(1);
  const priced = match[0] as PricingRow;
  expect(body).toMatchObject(evaluateOffloadGate(request, priced));
  return priced === NEW ? "new" : "old";
}
