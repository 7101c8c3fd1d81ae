import { describe, expect, it } from "vitest";
import { decideOutcome, priceInForce, priceSchedule, upcomingChanges, type ScheduledPriceRates } from "../../src/gate";
import { EXAMPLE_A } from "../fixtures/rows";

const FLASH: ScheduledPriceRates = {
  input: 0.75,
  output: 3.75,
  cache_read: 0.075,
  long_context: { threshold_tokens: 200_000, input: 1.5 },
  scheduled: [
    { effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5 },
    { effective_at: "2027-03-01T00:00:00+01:00", cache_read: 0.15, long_context: { input: 3, cache_read: 0.3 } },
  ],
};
const JAN = Date.parse("2027-01-01T00:00:00Z");
const MAR = Date.parse("2027-02-28T23:00:00Z");

describe("priceSchedule and priceInForce", () => {
  const schedule = priceSchedule(FLASH);

  it("starts with the row itself, so a row without changes costs nothing to price", () => {
    expect(schedule[0]).toEqual({ from: -Infinity, effective_at: null, row: FLASH });
    expect(schedule[0]!.row).toBe(FLASH);
    const plain = { input: 1, output: 2 };
    expect(priceInForce(priceSchedule(plain), Date.now()).row).toBe(plain);
  });

  it("switches at the change's instant exactly, not a millisecond before", () => {
    expect(priceInForce(schedule, JAN - 1).row.input).toBe(0.75);
    expect(priceInForce(schedule, JAN).row.input).toBe(1.5);
    expect(priceInForce(schedule, JAN).effective_at).toBe("2027-01-01T00:00:00Z");
  });

  it("applies each change on top of those before it, leaving out what it does not change", () => {
    const march = priceInForce(schedule, MAR).row;
    expect(march).toMatchObject({ input: 1.5, output: 7.5, cache_read: 0.15 });
    // The tier is overlaid field by field: its threshold stays.
    expect(march.long_context).toEqual({ threshold_tokens: 200_000, input: 3, cache_read: 0.3 });
    expect(march.scheduled).toBeUndefined();
    expect(Object.isFrozen(march)).toBe(true);
  });

  it("reads an instant with an offset as the instant it names", () => {
    expect(priceInForce(schedule, MAR - 1).row.cache_read).toBe(0.075);
    expect(priceInForce(schedule, MAR).row.cache_read).toBe(0.15);
  });

  it("lists only the changes still to come", () => {
    expect(upcomingChanges(FLASH, JAN - 1).map((c) => c.effective_at)).toEqual([
      "2027-01-01T00:00:00Z",
      "2027-03-01T00:00:00+01:00",
    ]);
    expect(upcomingChanges(FLASH, JAN).map((c) => c.effective_at)).toEqual(["2027-03-01T00:00:00+01:00"]);
    expect(upcomingChanges(FLASH, MAR)).toEqual([]);
  });

  it("prices a seed decision at the prices in force: double the price, double the terms", () => {
    const lookup = (now: number) => ({
      status: "priced" as const,
      row: priceInForce(schedule, now).row,
      canonical: "gemini-3.8-flash",
    });
    const inputs = { ...EXAMPLE_A, model_name: "gemini-3.8-flash", cache_hit_rate: 0, context_tokens: 0 };
    const before = decideOutcome("seed", inputs, lookup(JAN - 1));
    const after = decideOutcome("seed", inputs, lookup(JAN));
    expect(before.reprefill_saving_usd).toBeCloseTo(20_000 * 0.75e-6 * 4, 12);
    expect(after.reprefill_saving_usd).toBeCloseTo(2 * before.reprefill_saving_usd, 12);
    expect(after.expected_recall_hop_cost_usd).toBeCloseTo(2 * before.expected_recall_hop_cost_usd, 12);
  });
});
