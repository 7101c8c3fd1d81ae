import { describe, expect, it } from "vitest";
import seed from "../../pricing.seed.json";
import { PricingSeedSchema, type PricingRow } from "../../src/storage/schemas/schema";

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

  it("keeps Anthropic's cache ratios: 5-minute write 1.25×, 1-hour write 2× input, reads 0.1× but where a newer model cut them", () => {
    // The 2026 cuts Anthropic lists: Fable 5.1 reads at 0.025×, Opus 5.5 and Sonnet 5.5 at 0.05×.
    const cutReads: Record<string, number> = {
      "claude-fable-5-2": 0.025,
      "claude-fable-5-1": 0.025,
      "claude-opus-5-5": 0.05,
      "claude-sonnet-5-5": 0.05,
    };
    expect(anthropic.length).toBeGreaterThanOrEqual(16);
    for (const [model, row] of anthropic) {
      for (const tier of [row, row.long_context]) {
        if (tier === undefined) continue;
        const input = tier.input ?? row.input;
        near(tier.cache_read, input * (cutReads[model] ?? 0.1));
        near(tier.cache_write, input * 1.25);
        near(tier.cache_write_1h, input * 2);
      }
    }
  });

  it.each([
    ["claude-fable-5-1", 10, 50, 0.25, 12.5],
    ["claude-fable-5", 10, 50, 1, 12.5],
    ["claude-opus-5-5", 4, 20, 0.2, 5],
    ["claude-opus-5", 5, 25, 0.5, 6.25],
    ["claude-opus-4-8", 5, 25, 0.5, 6.25],
    ["claude-opus-4-7", 5, 25, 0.5, 6.25],
    ["claude-sonnet-5-5", 2, 10, 0.1, 2.5],
    ["claude-sonnet-5", 2, 10, 0.2, 2.5],
    ["claude-haiku-5-5", 0.1, 0.5, 0.01, 0.125],
    ["gpt-6.2-sol", 2, 10, 0.1, 2.5],
    ["gpt-6.1-sol", 2, 10, 0.1, 2.5],
    ["gpt-6.1-terra", 1, 5, 0.05, 1.25],
    ["gpt-5.6-terra", 2, 12, 0.2, 2.5],
    ["gemini-3.8-flash", 0.75, 3.75, 0.075, undefined],
    ["gemini-3.5-flash", 1.5, 9, 0.15, undefined],
    ["gemini-3.5-flash-lite", 0.3, 2.5, 0.03, undefined],
    ["gemini-3.1-pro-preview", 2, 12, 0.2, undefined],
  ])("prices the current model %s at its list price", (model, input, output, cacheRead, cacheWrite) => {
    const row = parsed.models[model] as PricingRow;
    expect([row.input, row.output, row.cache_read, row.cache_write]).toEqual([input, output, cacheRead, cacheWrite]);
    expect(row.source).toMatch(/^https:\/\/(platform\.claude\.com|developers\.openai\.com|ai\.google\.dev)\//);
  });

  it.each([
    ["claude-3-5-haiku", "2026-02-19", "claude-haiku-4-5"],
    ["claude-opus-4-1", "2026-08-05", "claude-opus-4-8"],
    ["claude-sonnet-4-5", "2026-11-30", "claude-sonnet-5-5"],
    ["claude-opus-4-5", "2027-01-22", "claude-opus-5-5"],
    ["gemini-3-pro-preview", "2026-03-09", "gemini-3.1-pro-preview"],
    ["gemini-2.5-pro", "2026-12-01", "gemini-3.8-flash"],
    ["gemini-2.5-flash", "2026-12-01", "gemini-3.5-flash-lite"],
    ["o4-mini", "2026-10-23", "gpt-5.6-terra"],
    ["gpt-5", "2026-12-11", "gpt-6.1-sol"],
    ["gpt-5-mini", "2026-12-11", "gpt-6.1-terra"],
    ["o3", "2026-12-11", "gpt-6.1-sol"],
    ["gpt-4.1", "2027-01-14", "gpt-6-luna"],
    ["gpt-4o", "2027-01-14", "gpt-6-luna"],
  ])("marks %s as retiring on %s, replaced by %s, with the page that says so", (model, retiresAt, replacement) => {
    const row = parsed.models[model] as PricingRow;
    expect([row.retires_at, row.replaced_by]).toEqual([retiresAt, replacement]);
    expect(row.lifecycle_source).toMatch(/^https:\/\//);
  });

  it("prices every named replacement here", () => {
    const missing = rows.flatMap(([, row]) =>
      row.replaced_by === undefined || parsed.models[row.replaced_by] !== undefined ? [] : [row.replaced_by],
    );
    expect(missing).toEqual([]);
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

describe("pricing.seed.json, its gaps filled", () => {
  it("names no replacement that has no row: the gate would answer unpriced from the retirement on", () => {
    for (const [model, row] of rows) {
      if (row.replaced_by !== undefined)
        expect(Object.hasOwn(parsed.models, row.replaced_by), `${model} → ${row.replaced_by}`).toBe(true);
    }
    const dangling = {
      models: { ...parsed.models, "gpt-5": { ...parsed.models["gpt-5"]!, replaced_by: "gpt-9-none" } },
    };
    expect(PricingSeedSchema.safeParse(dangling).error?.issues[0]?.path).toEqual(["models", "gpt-5", "replaced_by"]);
  });

  it("gives every row a cache_read, or says its model has no prompt cache", () => {
    for (const [model, row] of rows)
      expect(row.cache_read !== undefined || row.prompt_cache === false, model).toBe(true);
  });

  it("replaces gpt-5, gpt-5-mini and o3 by gpt-6.1, and gpt-4.1 and gpt-4o by gpt-6-luna on 2027-01-14", () => {
    expect(["gpt-5", "o3", "gpt-5-mini"].map((m) => parsed.models[m]?.replaced_by)).toEqual([
      "gpt-6.1-sol",
      "gpt-6.1-sol",
      "gpt-6.1-terra",
    ]);
    for (const m of ["gpt-4.1", "gpt-4o"])
      expect(parsed.models[m]).toMatchObject({ retires_at: "2027-01-14", replaced_by: "gpt-6-luna" });
  });

  it("doubles the Gemini 3.6, 3.7 and 3.8 Flash prices at 2027-01-01T00:00:00Z", () => {
    for (const m of ["gemini-3.6-flash", "gemini-3.7-flash", "gemini-3.8-flash"]) {
      expect(parsed.models[m]).toMatchObject({
        input: 0.75,
        output: 3.75,
        scheduled: [{ effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5 }],
      });
    }
    expect(parsed.models["gemini-4-argon"]).toMatchObject({ input: 4, output: 20 });
  });

  it("has a row for each model the gap audit found missing", () => {
    const wanted = [
      "claude-fable-5-2",
      "gpt-6.2-astra",
      "gpt-6-astra",
      "gpt-6-sol",
      "gpt-6-luna",
      "gpt-5.6-sol",
      "gpt-5.6-luna",
    ];
    wanted.push(
      "gemini-4-argon",
      "gemini-4-hydrogen",
      "gemini-4-neon",
      "gemini-3.6-flash",
      "gemini-3.7-flash",
      "gemini-2.5-flash-lite",
    );
    expect(wanted.filter((m) => !Object.hasOwn(parsed.models, m))).toEqual([]);
  });
});
