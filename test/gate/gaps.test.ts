import { describe, expect, it } from "vitest";
import {
  breakEven,
  cacheInputsFor,
  decideOutcome,
  decidePlan,
  evaluateCacheAwareGate,
  ratesAt,
  type CacheAwareInputs,
  type CachePriceRates,
} from "../../src/gate";
import { P1 } from "../support/plan-fixtures";
import { OPUS } from "../fixtures/rows";

/** gemini-3.5-flash as the seed once had it: no cache_read (docs/design/economics.md §3.4). */
const NO_READ: CachePriceRates = { input: 1.5, output: 9 };
/** gemini-3.1-pro-preview's shape: a base read price, none above 200k. */
const TIER_NO_READ: CachePriceRates = {
  input: 2,
  output: 12,
  long_context: { threshold_tokens: 200_000, input: 4, output: 18 },
};

const INPUTS: CacheAwareInputs = {
  model_name: "gemini-3.5-flash",
  output_tokens: 20_000,
  horizon: 4,
  recall_probability: 0.3,
  cache_hit_rate: 0.9,
  context_tokens: 60_000,
};
const priced = (row: CachePriceRates) => ({ status: "priced" as const, row, canonical: "gemini-3.5-flash" });

describe("the gap rule: a missing cache_read never becomes a guess", () => {
  it("flags the read a row lacks, and names the tier's when the tier is in force", () => {
    expect(ratesAt(NO_READ, 0).missing).toBe("cache_read");
    expect(ratesAt(OPUS, 0).missing).toBeUndefined();
    expect(ratesAt({ ...TIER_NO_READ }, 300_000).missing).toBe("long_context.cache_read");
    // A tier without a read falls back to the row's, as before: nothing is missing.
    expect(ratesAt({ ...TIER_NO_READ, cache_read: 0.2 }, 300_000).missing).toBeUndefined();
  });

  it("does not fire at q > 0, names the field, and still reports every term", () => {
    const guessed = evaluateCacheAwareGate(INPUTS, NO_READ);
    expect(guessed.fire).toBe(true); // what the old fallback would have done
    const outcome = decideOutcome("cache_aware", INPUTS, priced(NO_READ));
    expect(outcome.fire).toBe(false);
    expect(outcome.reason_code).toBe("pricing_incomplete");
    expect(outcome.reason).toMatch(/^pricing incomplete: gemini-3\.5-flash has no cache_read price and q=0\.90 > 0/);
    expect(outcome.net_saving_usd).toBe(guessed.net_saving_usd);
    expect(outcome.reprefill_saving_usd).toBe(guessed.reprefill_saving_usd);
    expect(outcome.expected_recall_hop_cost_usd).toBe(guessed.expected_recall_hop_cost_usd);
    expect(outcome.reason).toContain(guessed.reason);
  });

  it("names long_context.cache_read when the request is in a tier that has none", () => {
    const row: CachePriceRates = { ...TIER_NO_READ, long_context: { threshold_tokens: 50_000, input: 4 } };
    const outcome = decideOutcome("cache_aware", INPUTS, priced(row));
    expect(outcome.reason_code).toBe("pricing_incomplete");
    expect(outcome.reason).toContain("no long_context.cache_read price");
  });

  it("decides as before at q = 0, where no read is priced", () => {
    const outcome = decideOutcome("cache_aware", { ...INPUTS, cache_hit_rate: 0 }, priced(NO_READ));
    expect(outcome.reason_code).toBe(outcome.fire ? "net_positive" : "net_not_positive");
  });

  it("counts a q range reaching above 0 as q > 0", () => {
    const outcome = decideOutcome(
      "cache_aware",
      { ...INPUTS, cache_hit_rate: 0, cache_hit_rate_range: [0, 0.5] },
      priced(NO_READ),
    );
    expect(outcome.reason_code).toBe("pricing_incomplete");
    expect(outcome.reason).toContain("q=0.50");
  });

  it("leaves the seed mode alone: it prices no cache", () => {
    const seed = decideOutcome("seed", INPUTS, priced(NO_READ));
    expect(seed.reason_code).toBe("net_positive");
  });

  it("prices a row with prompt_cache false at q = 0, and says so", () => {
    const row: CachePriceRates = { ...NO_READ, prompt_cache: false };
    expect(cacheInputsFor({ ...INPUTS, cache_hit_rate_range: [0.5, 1] }, row)).toEqual({
      ...INPUTS,
      cache_hit_rate: 0,
    });
    const outcome = decideOutcome("cache_aware", { ...INPUTS, cache_hit_rate_range: [0.5, 1] }, priced(row));
    const atZero = evaluateCacheAwareGate({ ...INPUTS, cache_hit_rate: 0 }, NO_READ);
    expect(outcome.reason_code).toBe("net_positive");
    expect(outcome.net_saving_usd).toBe(atZero.net_saving_usd);
    expect(outcome.reason).toContain("q=0.00");
    expect(outcome.reason).toContain("prompt_cache=false mode=cache_aware");
  });

  it("gives no break-even where every decision would have to guess", () => {
    expect(breakEven("cache_aware", INPUTS, NO_READ)).toEqual({
      break_even_horizon: null,
      break_even_output_tokens: null,
    });
    expect(decideOutcome("cache_aware", INPUTS, priced(NO_READ)).break_even_horizon).toBeNull();
    // At q = 0 the same row has break-evens.
    expect(breakEven("cache_aware", { ...INPUTS, cache_hit_rate: 0 }, NO_READ).break_even_horizon).not.toBeNull();
  });

  it("finds break-evens where every request it prices has a read price", () => {
    // A read price above 100k only: with the history above it, both requests are in the tier.
    const row: CachePriceRates = {
      input: 2,
      output: 12,
      long_context: { threshold_tokens: 100_000, input: 4, cache_read: 0.4 },
    };
    const inputs = { ...INPUTS, context_tokens: 120_000, horizon: 6, recall_probability: 0.1 };
    const found = breakEven("cache_aware", inputs, row).break_even_output_tokens;
    expect(found).not.toBeNull();
    const at = (o: number) => decideOutcome("cache_aware", { ...inputs, output_tokens: o }, priced(row));
    expect(at(found!).fire).toBe(true);
    if (found! > 10_000) expect(at(found! - 1).fire).toBe(false);
    // Below the tier the stub's request has no read price: nothing fires, and no break-even is given.
    expect(breakEven("cache_aware", { ...inputs, context_tokens: 60_000 }, row)).toEqual({
      break_even_horizon: null,
      break_even_output_tokens: null,
    });
  });

  it("makes a clearing plan stub nothing on a row without a read price, candidates still priced", () => {
    const plan = decidePlan(P1, { status: "priced", row: { input: 5, output: 25, cache_write: 6.25 }, canonical: "m" });
    expect(plan.reason_code).toBe("pricing_incomplete");
    expect(plan.stub).toEqual([]);
    expect(plan.net_saving_usd).toBe(0);
    expect(plan.reason).toMatch(/^pricing incomplete: .* no cache_read price .*nothing stubbed/);
    expect(plan.candidates.every((c) => c.alone_net_saving_usd !== null)).toBe(true);
    const noCache = decidePlan(P1, {
      status: "priced",
      row: { input: 5, output: 25, prompt_cache: false },
      canonical: "m",
    });
    expect(noCache.reason_code).not.toBe("pricing_incomplete");
    expect(noCache.reason).toContain("q=0.00");
  });
});
