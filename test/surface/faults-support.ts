/**
 * @module test/surface/faults-support
 *
 * Fault injection against the real app and the real local KV binding: a
 * fault is injected by spying on one method of the binding, never by a
 * fake. What the fault tests share: the spies, a faked wall clock, and the
 * gate call they check.
 *
 * @example
 * useFaultState();
 * const held = holdPricingReads();
 * held.release();
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, expect, vi } from "vitest";
import { evaluateOffloadGate } from "../../src/gate";
import type { PricingRow } from "../../src/storage/schemas/schema";
import { EXAMPLE_A, OPUS, postGate, putRow, resetState } from "../support/helpers";

export const MODEL = "claude-opus-4-6";
/** The row that races OPUS in the concurrency tests. */
export const NEW: PricingRow = { input: 7, output: 40, cache_read: 0.7, cache_write: 8.75, cache_write_1h: 14 };
export const TTL_MS = 60_000; // the default pricing_cache_ttl_seconds

// The real get, captured before any spy replaces it, so an injected fault
// can pass the keys it does not target through to KV.
export const realGet = env.PRICING.get.bind(env.PRICING) as (key: string) => Promise<string | null>;

export interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

/** A promise and the function that resolves it. */
export function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Makes KV get fail for `pricing:` keys and pass the rest through. */
export function failPricingReads(error = new Error("KV GET failed: 503 Service Unavailable")) {
  return vi.spyOn(env.PRICING, "get").mockImplementation((async (key: string) => {
    if (key.startsWith("pricing:")) throw error;
    return realGet(key);
  }) as never);
}

/** Makes KV get for `pricing:` keys wait until the test releases it; counts those calls. */
export function holdPricingReads() {
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
export function advanceClock(ms: number): void {
  vi.setSystemTime(Date.now() + ms);
}

/** POST /v1/gate, which must answer 200, as JSON. */
export async function decide(body: object = EXAMPLE_A): Promise<any> {
  const res = await postGate(body);
  expect(res.status).toBe(200);
  return res.json();
}

/** Warms the isolate cache with the current rows and config. */
export async function warm(): Promise<void> {
  const body = await decide();
  expect(body.stale_pricing).toBeNull();
  expect(body.priced_as.model).toBe(MODEL);
}

/**
 * Registers the file's hooks: a faked Date, local KV reset to the one row,
 * before each test; spies and the clock restored after.
 *
 * @example
 * useFaultState();
 */
export function useFaultState(): void {
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    await resetState();
    await putRow(MODEL, OPUS);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });
}

export function canonical(row: object): string {
  return JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));
}

export function omitModel({
  model: _model,
  resolved_from: _from,
  price_effective_at: _at,
  ...prices
}: {
  model: string;
  resolved_from?: string;
  price_effective_at?: string | null;
}): object {
  return prices;
}

/**
 * Checks that one answer was priced by exactly one of the two rows, every
 * term and the reason to the last bit, and says which.
 */
export function pricedByOneRow(body: any, request: typeof EXAMPLE_A): "new" | "old" {
  const { model, resolved_from: from, price_effective_at: effectiveAt, ...prices } = body.priced_as;
  expect(model).toBe(MODEL);
  expect(from).toBe("exact");
  // Neither row has scheduled changes: their own prices priced it.
  expect(effectiveAt).toBeNull();
  const match = [OPUS, NEW].filter((candidate) => canonical(candidate) === canonical(prices));
  expect(match).toHaveLength(1);
  const priced = match[0] as PricingRow;
  expect(body).toMatchObject(evaluateOffloadGate(request, priced));
  return priced === NEW ? "new" : "old";
}
