import { describe, expect, it } from "vitest";
import seed from "../pricing.seed.json";
import { PricingSeedSchema, type PricingRow } from "../src/store/schema";

const parsed = PricingSeedSchema.parse(seed);
const rows = Object.entries(parsed.models);
const anthropic = rows.filter(([, row]) => row.provider === "anthropic");

/** USD per million, compared to the cent's ten-thousandth: the seed holds decimal list prices. */
const near = (actual: number | undefined, expected: number) => expect(actual).toBeCloseTo(expected, 6);

describe("pricing.seed.json", () => {
  it("validates against the row schema the worker uses", () => {
    expect(PricingSeedSchema.safeParse(seed).success).toBe(true);
  });

  it("gives every row its source and the date it was checked", () => {
    for (const [, row] of rows) {
      expect(row.source).toMatch(/^https:\/\//);
      expect(row.verified_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row.provider).toBeDefined();
    }
  });

  it.each([
    ["claude-opus-4-6", 5, 25, 0.5, 6.25],
    ["claude-opus-4-5", 5, 25, 0.5, 6.25],
    ["claude-opus-4-1", 15, 75, 1.5, 18.75],
    ["claude-sonnet-4-6", 3, 15, 0.3, 3.75],
    ["claude-sonnet-4-5", 3, 15, 0.3, 3.75],
    ["claude-haiku-4-5", 1, 5, 0.1, 1.25],
    ["claude-3-5-haiku", 0.8, 4, 0.08, 1],
    ["gpt-5", 1.25, 10, 0.125, 1.25],
    ["gpt-5-mini", 0.25, 2, 0.025, 0.25],
    ["gpt-4.1", 2, 8, 0.5, 2],
    ["gpt-4o", 2.5, 10, 1.25, 2.5],
    ["o3", 2, 8, 0.5, 2],
    ["o4-mini", 1.1, 4.4, 0.275, 1.1],
    ["gemini-2.5-pro", 1.25, 10, 0.125, undefined],
    ["gemini-2.5-flash", 0.3, 2.5, 0.03, undefined],
    ["gemini-3-pro-preview", 2, 12, 0.2, undefined],
  ])("prices %s at its list price", (model, input, output, cacheRead, cacheWrite) => {
    const row = parsed.models[model] as PricingRow;
    expect(row).toBeDefined();
    expect([row.input, row.output, row.cache_read, row.cache_write]).toEqual([input, output, cacheRead, cacheWrite]);
  });

  it("keeps Anthropic's cache ratios: read 0.1×, 5-minute write 1.25×, 1-hour write 2× input", () => {
    expect(anthropic.length).toBeGreaterThanOrEqual(7);
    for (const [, row] of anthropic) {
      for (const tier of [row, row.long_context]) {
        if (tier === undefined) continue;
        const input = tier.input ?? row.input;
        near(tier.cache_read, input * 0.1);
        near(tier.cache_write, input * 1.25);
        near(tier.cache_write_1h, input * 2);
      }
    }
  });

  it("gives claude-opus-4-6 a 1-hour write of 10 and no long-context tier", () => {
    expect(parsed.models["claude-opus-4-6"]?.cache_write_1h).toBe(10);
    expect(parsed.models["claude-opus-4-6"]?.long_context).toBeUndefined();
  });

  it.each([
    ["claude-sonnet-4-5", { threshold_tokens: 200_000, input: 6, output: 22.5, cache_read: 0.6, cache_write: 7.5 }],
    ["gemini-2.5-pro", { threshold_tokens: 200_000, input: 2.5, output: 15, cache_read: 0.25 }],
    ["gemini-3-pro-preview", { threshold_tokens: 200_000, input: 4, output: 18, cache_read: 0.4 }],
  ])("prices %s above 200k input tokens at its long-context tier", (model, tier) => {
    expect(parsed.models[model]?.long_context).toMatchObject(tier);
  });

  it.each([
    ["claude-opus-4-5-20251101", "claude-opus-4-5"],
    ["claude-opus-4-1-20250805", "claude-opus-4-1"],
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["claude-haiku-4-5-20251001", "claude-haiku-4-5"],
    ["claude-3-5-haiku-20241022", "claude-3-5-haiku"],
  ])("resolves the snapshot %s to %s", (alias, canonical) => {
    expect(parsed.models[canonical]?.aliases).toContain(alias);
  });

  it("refuses an alias that two rows claim", () => {
    const clash = {
      models: {
        a: { input: 1, output: 1, aliases: ["shared"] },
        b: { input: 1, output: 1, aliases: ["shared"] },
      },
    };
    const result = PricingSeedSchema.safeParse(clash);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("alias shared is already claimed by a");
  });
});
