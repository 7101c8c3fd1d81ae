/**
 * The recall hop's formula held against the bill a provider would send for the recall call itself
 * (docs/design/economics.md §4.1–§4.2), and the providers' cache TTLs (§5.1).
 *
 * The bill is built from messages, not from the formula: a history of segments (the context, the
 * stub, the suffix), the call that asks for the recall and its result added at the end (append) or
 * put where the stub stood (in place). The provider reads from its cache the longest prefix the
 * last call cached; every token after it is written, the reply billed as output. With the cache
 * warm (q = 1) or cold (q = 0) the bill is a plain sum, so q's two ends pin the formula, and m(T)
 * is affine in q between them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CACHE_TTL_SECONDS,
  CACHE_TTLS,
  cacheAwareParams,
  cacheAwareTerms,
  cacheTtlRefusal,
  cacheTtlSeconds,
  defaultCacheTtl,
  ratesAt,
  type CachePriceRates,
  type CacheAwareInputs,
  type RecallPlacement,
} from "../../src/gate";
import { OPUS } from "../fixtures/rows";

interface Message {
  /** A stable identity: a provider's cache matches a prefix message by message. */
  key: string;
  tokens: number;
}

/**
 * What the provider charges for one call over `messages`, its previous call having cached
 * `cached`: the longest common prefix is read (or, cold, written again), the rest written, the
 * reply billed as output, all at the rates of a request of that many input tokens.
 */
function billOf(
  row: CachePriceRates,
  cached: readonly Message[],
  messages: readonly Message[],
  reply: number,
  warm: boolean,
  ttl: CacheAwareInputs["cache_ttl"],
): number {
  let prefix = 0;
  while (prefix < cached.length && prefix < messages.length && cached[prefix]!.key === messages[prefix]!.key) prefix++;
  const input = messages.reduce((sum, m) => sum + m.tokens, 0);
  const rates = ratesAt(row, input, ttl);
  const read = messages.slice(0, prefix).reduce((sum, m) => sum + m.tokens, 0);
  return read * (warm ? rates.read : rates.write) + (input - read) * rates.write + reply * rates.out;
}

/**
 * The recall call's bill for a stubbed output: the history as the last call cached it (the context,
 * the stub, the suffix), then the recall's tool call and result at the end or in the stub's place.
 */
function recallBill(inputs: CacheAwareInputs, row: CachePriceRates, placement: RecallPlacement, warm: boolean): number {
  const params = cacheAwareParams(inputs);
  const history: Message[] = [
    { key: "context", tokens: params.contextTokens },
    { key: "stub", tokens: params.stubTokens },
    { key: "suffix", tokens: params.suffixTokens },
  ];
  const recalled: Message = { key: "recalled", tokens: params.recallInputTokens };
  const messages =
    placement === "append"
      ? [...history, recalled]
      : // In place the stub's slot holds the recalled slice: the prefix changes there.
        [history[0]!, recalled, history[2]!];
  return billOf(row, history, messages, params.recallOutputTokens, warm, params.cacheTtl);
}

/** The hop the gate prices for the same request at q, before p: its recall term at p = 1. */
const hopAt = (inputs: CacheAwareInputs, row: CachePriceRates, q: number) =>
  cacheAwareTerms(row, cacheAwareParams({ ...inputs, recall_probability: 1, cache_hit_rate: q })).recall;

const R1: CacheAwareInputs = {
  model_name: "claude-opus-4-6",
  output_tokens: 20_000,
  horizon: 4,
  recall_probability: 0.3,
  cache_hit_rate: 0.9,
  context_tokens: 60_000,
  offload_at: "retroactive",
  suffix_tokens: 30_000,
  stub_tokens: 200,
  recall_input_tokens: 2_000,
  recall_output_tokens: 500,
};

describe("the recall hop against the provider's bill for the recall call", () => {
  it("R1 appended: the bill reads 90,200 cached tokens and writes 2,000; the formula leaves the stub's 200 unpriced", () => {
    const bill = recallBill({ ...R1, recall_placement: "append" }, OPUS, "append", true);
    // 90,200 · 0.5e-6 + 2,000 · 6.25e-6 + 500 · 25e-6
    expect(bill).toBeCloseTo(0.0701, 12);
    // The formula reads P + A (90,000): the stub's own read, 200 · 0.5e-6, is the only difference.
    expect(bill - hopAt({ ...R1, recall_placement: "append" }, OPUS, 1)).toBeCloseTo(200 * 0.5e-6, 12);
  });

  it("R1 in place: the bill reads the 60,000 before the stub and writes the rest", () => {
    const inPlace = { ...R1, recall_placement: "in_place" } as const;
    const bill = recallBill(inPlace, OPUS, "in_place", true);
    // 60,000 · 0.5e-6 + (2,000 + 30,000) · 6.25e-6 + 500 · 25e-6
    expect(bill).toBeCloseTo(0.2425, 12);
    expect(hopAt(inPlace, OPUS, 1)).toBeCloseTo(bill, 12);
  });

  it("matches the bill at both ends of q on random requests and rows, in either placement, up to the stub's own tokens", () => {
    const row = fc.record({
      input: fc.double({ min: 0.1, max: 20, noNaN: true }),
      output: fc.double({ min: 0.1, max: 100, noNaN: true }),
      cache_read: fc.double({ min: 0, max: 5, noNaN: true }),
      cache_write: fc.double({ min: 0.1, max: 30, noNaN: true }),
      cache_write_1h: fc.double({ min: 0.1, max: 40, noNaN: true }),
    });
    const request = fc.record({
      context_tokens: fc.nat({ max: 150_000 }),
      suffix_tokens: fc.nat({ max: 100_000 }),
      stub_tokens: fc.nat({ max: 1_000 }),
      recall_input_tokens: fc.nat({ max: 20_000 }),
      recall_output_tokens: fc.nat({ max: 2_000 }),
      offload_at: fc.constantFrom("entry", "retroactive"),
      cache_ttl: fc.constantFrom("5m", "1h"),
      recall_placement: fc.constantFrom("append", "in_place"),
    });
    fc.assert(
      fc.property(row, request, (r, fields) => {
        const inputs: CacheAwareInputs = { ...R1, ...fields } as CacheAwareInputs;
        const params = cacheAwareParams(inputs);
        const t = ratesAt(r, params.contextTokens + params.stubTokens + params.suffixTokens, params.cacheTtl);
        const placement = params.recallPlacement ?? "append";
        for (const warm of [true, false]) {
          const bill = recallBill(inputs, r, placement, warm);
          // Appended, the bill also reads the stub from the cache, a term the formula leaves out (≤ S · write).
          const stub = placement === "append" ? params.stubTokens * (warm ? t.read : t.write) : 0;
          const hop = hopAt(inputs, r, warm ? 1 : 0);
          expect(Math.abs(bill - stub - hop)).toBeLessThanOrEqual(1e-9 * Math.max(1, bill));
        }
      }),
      { seed: 44, numRuns: 500 },
    );
  });
});

describe("the providers' cache TTLs", () => {
  it("default by provider, the row's own list first", () => {
    expect(defaultCacheTtl({ provider: "anthropic" })).toBe("5m");
    expect(defaultCacheTtl({ provider: "openai" })).toBe("in_memory");
    expect(defaultCacheTtl({ provider: "google" })).toBe("implicit");
    expect(defaultCacheTtl({ provider: "openai", cache_ttls: ["24h", "in_memory"] })).toBe("24h");
    expect(defaultCacheTtl({})).toBe("5m");
    expect(defaultCacheTtl({ provider: "someone-else" })).toBe("5m");
  });

  it("refuse a TTL the row does not offer, naming what it does; a row that says nothing takes any", () => {
    expect(cacheTtlRefusal({ provider: "openai" }, "1h", "gpt-5")).toBe(
      'is not offered for gpt-5, which offers "in_memory" or "24h"',
    );
    expect(cacheTtlRefusal({ provider: "anthropic" }, "24h", "claude-opus-4-6")).toBe(
      'is not offered for claude-opus-4-6, which offers "5m" or "1h"',
    );
    expect(cacheTtlRefusal({ provider: "openai", cache_ttls: ["in_memory"] }, "24h", "gpt-4o")).toMatch(
      /offers "in_memory"$/,
    );
    expect(cacheTtlRefusal({ provider: "google" }, "implicit", "gemini-2.5-pro")).toBeNull();
    for (const ttl of CACHE_TTLS) expect(cacheTtlRefusal({}, ttl, "m")).toBeNull();
  });

  it("keep a prefix 5 minutes, an hour, 5 minutes in memory (the short end of 5–10), 24 hours, 5 minutes implicitly, and 30 minutes on GPT-5.6+", () => {
    expect(CACHE_TTL_SECONDS).toEqual({
      "5m": 300,
      "1h": 3_600,
      in_memory: 300,
      "24h": 86_400,
      implicit: 300,
      "30m": 1_800,
    });
    expect(cacheTtlSeconds({ provider: "openai" })).toBe(300);
    expect(cacheTtlSeconds({ provider: "openai" }, "24h")).toBe(86_400);
    expect(cacheTtlSeconds({ provider: "anthropic" }, "1h")).toBe(3_600);
  });

  it("price only the 1-hour TTL at its own write: OpenAI's and Gemini's caches write at the row's 5-minute write", () => {
    const base = cacheAwareTerms(OPUS, cacheAwareParams({ ...R1, cache_ttl: "5m" })).net;
    for (const ttl of ["in_memory", "24h", "implicit"] as const)
      expect(cacheAwareTerms(OPUS, cacheAwareParams({ ...R1, cache_ttl: ttl })).net).toBe(base);
    const gemini = { input: 1.25, output: 10, cache_read: 0.125 };
    // No write charge: a write costs the input price.
    expect(ratesAt(gemini, 0, "implicit").write).toBe(1.25 / 1e6);
  });
});
