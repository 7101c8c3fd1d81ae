import { describe, expect, it } from "vitest";
import { mergeSeeds } from "../../scripts/pricing/merge";
import { diffSeed, exportSeed, formatDiff, validateSeed, type KvSnapshot } from "../../scripts/pricing/seed";
import type { PricingRow, PricingSeed } from "../../src/storage/schemas/schema";

const TODAY = new Date("2026-12-01T21:00:00Z");
const FLASH: PricingRow = {
  input: 0.75,
  output: 3.75,
  cache_read: 0.075,
  provider: "google",
  source: "https://ai.google.dev/gemini-api/docs/pricing",
  verified_at: "2026-12-01",
  scheduled: [{ effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5, cache_read: 0.15 }],
};
const seed = (models: Record<string, PricingRow>): PricingSeed => ({ models });
const snapshot = (models: Record<string, unknown>): KvSnapshot => ({
  rows: new Map(Object.entries(models).map(([model, row]) => [model, JSON.stringify(row)])),
  aliases: new Map(),
});

describe("the CLI keeps scheduled changes intact", () => {
  it("validates a row with scheduled changes, and refuses them unsorted, naming the field", () => {
    expect(validateSeed(seed({ "gemini-3.8-flash": FLASH }), TODAY)).toMatchObject({ errors: [], warnings: [] });
    const unsorted = {
      ...FLASH,
      scheduled: [FLASH.scheduled![0]!, { effective_at: "2026-12-31T00:00:00Z", input: 1 }],
    };
    expect(validateSeed(seed({ m: unsorted }), TODAY).errors).toEqual([
      "models.m.scheduled.1.effective_at: must be after scheduled.0.effective_at: changes are sorted, oldest first",
    ]);
  });

  it("warns about a change already in force: it belongs in the row's prices", () => {
    const past = { ...FLASH, scheduled: [{ effective_at: "2026-11-01T00:00:00Z", input: 1 }] };
    expect(validateSeed(seed({ m: past }), TODAY).warnings).toEqual([
      "models.m.scheduled.0: took effect on 2026-11-01T00:00:00Z; fold it into the row's prices and drop it",
    ]);
  });

  it("diffs scheduled changes like any other field, and exports them as stored", () => {
    const kv = snapshot({ "gemini-3.8-flash": { ...FLASH, scheduled: undefined } });
    const lines = formatDiff(diffSeed(seed({ "gemini-3.8-flash": FLASH }), kv));
    expect(lines).toEqual([`~ gemini-3.8-flash: scheduled (absent) → ${JSON.stringify(FLASH.scheduled)}`]);
    expect(exportSeed(snapshot({ "gemini-3.8-flash": FLASH })).seed.models["gemini-3.8-flash"]).toEqual(FLASH);
    expect(diffSeed(seed({ "gemini-3.8-flash": FLASH }), snapshot({ "gemini-3.8-flash": FLASH }))).toEqual({
      rows: [],
      aliases: [],
    });
  });

  it("keeps the seed's scheduled changes in a LiteLLM merge, whatever the file says", () => {
    const merged = mergeSeeds(
      seed({ "gemini-3.8-flash": FLASH }),
      seed({ "gemini-3.8-flash": { input: 0.75, output: 3.75, cache_read: 0.075 } }),
      false,
    );
    expect(merged.seed.models["gemini-3.8-flash"]).toEqual(FLASH);
    expect(merged.conflicts).toEqual([]);
  });
});

describe("the CLI and the gap rule", () => {
  it("refuses a replacement that has no row, naming the field", () => {
    const retiring = { ...FLASH, scheduled: undefined, retires_at: "2026-12-11", replaced_by: "gpt-5.6-sol" };
    expect(validateSeed(seed({ "gpt-5": retiring }), TODAY).errors).toEqual([
      "models.gpt-5.replaced_by: names gpt-5.6-sol, which has no row (nor alias) in this seed",
    ]);
    expect(
      validateSeed(seed({ "gpt-5": retiring, "gpt-5.6-sol": { ...FLASH, scheduled: undefined } }), TODAY).errors,
    ).toEqual([]);
  });

  it("warns about a row without cache_read, unless it has no prompt cache", () => {
    const { cache_read: _r, scheduled: _s, ...noRead } = FLASH;
    expect(validateSeed(seed({ m: noRead }), TODAY).warnings).toEqual([
      "models.m.cache_read: is missing: cache-aware decisions at q > 0 on this row do not fire (pricing_incomplete); give the provider's cache-read price, or prompt_cache: false if the model has no prompt cache",
    ]);
    expect(validateSeed(seed({ m: { ...noRead, prompt_cache: false } }), TODAY).warnings).toEqual([]);
  });
});
