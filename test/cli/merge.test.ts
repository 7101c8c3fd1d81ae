import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importLitellm, LITELLM_SOURCE } from "../../scripts/pricing/litellm";
import { mergeSeeds } from "../../scripts/pricing/merge";
import { PricingSeedSchema } from "../../src/storage/schemas/schema";

const read = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"));
const DATED = read("litellm-dated.json");
const SEED = PricingSeedSchema.parse(read("seed-merge.json"));

describe("mergeSeeds: the seed's rows and aliases are kept, disagreements reported", () => {
  const imported = importLitellm(DATED, { providers: ["anthropic", "openai"] }, LITELLM_SOURCE).seed;
  const merged = mergeSeeds(SEED, imported, false);

  it("adds the rows the seed lacks, and the aliases no one claims", () => {
    expect(merged.added).toEqual(["claude-3-5-haiku", "claude-sonnet-4-5", "gpt-4o-2024-05-13", "gpt-5"]);
    expect(merged.aliased).toEqual(["gpt-4o-2024-08-06 → gpt-4o"]);
    expect(merged.seed.models["gpt-4o"]?.aliases).toEqual(["gpt-4o-2024-08-06"]);
    expect(PricingSeedSchema.safeParse(merged.seed).success).toBe(true);
  });

  it("reports a row the file prices differently and keeps the seed's, lifecycle and all", () => {
    expect(merged.conflicts).toContain(
      "claude-haiku-4-5: the file has cache_write 1.25 → 0.125, cache_write_1h 2 → (absent); the seed's row is kept",
    );
    expect(merged.seed.models["claude-haiku-4-5"]).toEqual(SEED.models["claude-haiku-4-5"]);
    expect(merged.seed.models["claude-opus-4-1"]).toEqual(SEED.models["claude-opus-4-1"]);
  });

  it("reports an alias that another seed row claims, and leaves it with that row", () => {
    expect(merged.conflicts).toContain(
      "alias gpt-5-2025-08-07: the file gives it to gpt-5, the seed to gpt-4.1; the seed's is kept",
    );
    expect(merged.seed.models["gpt-5"]?.aliases).toBeUndefined();
    expect(merged.seed.models["gpt-4.1"]?.aliases).toEqual(["gpt-5-2025-08-07"]);
  });

  it("does not add a row under a name the seed uses as an alias", () => {
    const clash = mergeSeeds(SEED, { models: { "claude-haiku-4-5-20251001": { input: 1, output: 5 } } }, false);
    expect(clash.added).toEqual([]);
    expect(clash.conflicts).toEqual([
      "claude-haiku-4-5-20251001: is an alias of claude-haiku-4-5 in the seed; the file's row is not added",
    ]);
  });

  it("prunes only the named providers' rows the file lacks, never a row that retires (it maps to its replacement) nor a replacement", () => {
    const anthropicOnly = importLitellm(DATED, { providers: ["anthropic"] }, LITELLM_SOURCE);
    const pruned = mergeSeeds(SEED, anthropicOnly.seed, { providers: anthropicOnly.providers });
    // claude-opus-4-1 names claude-opus-4-8 as its replacement: it stays.
    expect(pruned.pruned).toEqual([]);
    expect(pruned.kept).toEqual([
      "claude-opus-4-8: not in the file, kept because claude-opus-4-1 names it as a replacement",
    ]);
    expect(pruned.seed.models["gpt-4.1"]).toBeDefined();
    expect(pruned.seed.models["gemini-2.5-flash"]).toBeDefined();

    const withoutOpus = {
      models: Object.fromEntries(
        Object.entries(anthropicOnly.seed.models).filter(([model]) => model !== "claude-opus-4-1"),
      ),
    };
    const kept = mergeSeeds(SEED, withoutOpus, { providers: ["anthropic"] });
    expect(kept.pruned).toEqual([]);
    expect(kept.kept).toEqual([
      "claude-opus-4-1: not in the file, kept because it retires on 2026-08-05 (it maps requests to its replacement)",
      "claude-opus-4-8: not in the file, kept because claude-opus-4-1 names it as a replacement",
    ]);
  });
});
