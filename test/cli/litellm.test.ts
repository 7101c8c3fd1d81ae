import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importLitellm, LITELLM_SOURCE, litellmSource, perMillion } from "../../scripts/pricing/litellm";
import { PricingSeedSchema } from "../../src/storage/schemas/schema";

const SAMPLE = JSON.parse(readFileSync(new URL("./fixtures/litellm-sample.json", import.meta.url), "utf8"));

describe("importLitellm", () => {
  it("converts USD per token into USD per million, with the cache and 1-hour write prices and the 200k tier", () => {
    const { seed, notes } = importLitellm(SAMPLE, { models: ["claude-sonnet-4-5"] }, LITELLM_SOURCE);
    expect(notes).toEqual([]);
    expect(seed.models["claude-sonnet-4-5"]).toEqual({
      input: 3,
      output: 15,
      cache_read: 0.3,
      cache_write: 3.75,
      cache_write_1h: 6,
      long_context: {
        threshold_tokens: 200_000,
        input: 6,
        output: 22.5,
        cache_read: 0.6,
        cache_write: 7.5,
        cache_write_1h: 12,
      },
      provider: "anthropic",
      source: LITELLM_SOURCE,
    });
  });

  it("selects a provider's text models, skipping and noting embeddings and invalid rows", () => {
    const { seed, notes } = importLitellm(SAMPLE, { providers: ["openai"] }, LITELLM_SOURCE);
    expect(Object.keys(seed.models)).toEqual(["gpt-5", "gpt-5-mini"]);
    expect(seed.models["gpt-5-mini"]?.cache_read).toBe(0.025);
    expect(seed.models["gpt-5"]).toEqual({
      input: 1.25,
      output: 10,
      cache_read: 0.125,
      provider: "openai",
      source: LITELLM_SOURCE,
    });
    expect(notes).toEqual([
      "gpt-image-broken: skipped, input_cost_per_token is out of range (-0.000001)",
      "text-embedding-3-small: skipped, mode embedding is not a text-generation model",
    ]);
  });

  it("matches the provider by LiteLLM's name, so bedrock rows stay out of --provider anthropic", () => {
    expect(Object.keys(importLitellm(SAMPLE, { providers: ["anthropic"] }, LITELLM_SOURCE).seed.models)).toEqual([
      "claude-haiku-odd",
      "claude-opus-4-1",
      "claude-sonnet-4-5",
    ]);
  });

  it("keeps the first long-context tier when LiteLLM has several, and says so", () => {
    const { seed, notes } = importLitellm(SAMPLE, { models: ["gemini-tiered"] }, LITELLM_SOURCE);
    expect(seed.models["gemini-tiered"]?.long_context).toEqual({ threshold_tokens: 128_000, input: 2, output: 8 });
    expect(notes).toEqual([
      "gemini-tiered: LiteLLM has tiers above 128000, 200000 tokens; only the first (128000) is kept",
    ]);
  });

  it("writes a file the worker's own seed schema accepts", () => {
    const { seed } = importLitellm(SAMPLE, { models: ["claude-opus-4-1", "gemini-2.5-pro", "gpt-5"] }, LITELLM_SOURCE);
    expect(PricingSeedSchema.safeParse(seed).success).toBe(true);
    expect(seed.models["gemini-2.5-pro"]).toMatchObject({
      cache_read: 0.3125,
      long_context: { threshold_tokens: 200_000, input: 2.5 },
    });
  });

  it("refuses a named model the file does not have, and a provider it does not know", () => {
    expect(() => importLitellm(SAMPLE, { models: ["gpt-5", "gpt-9"] }, LITELLM_SOURCE)).toThrow(
      "not in the LiteLLM file: gpt-9",
    );
    expect(() => importLitellm(SAMPLE, { providers: ["nobody"] }, LITELLM_SOURCE)).toThrow(
      'no model in the LiteLLM file has litellm_provider "nobody"',
    );
  });

  it("rounds away float noise", () => {
    expect(2.5e-8 * 1e6).not.toBe(0.025);
    expect(perMillion(2.5e-8)).toBe(0.025);
    expect(perMillion(3.125e-7)).toBe(0.3125);
    expect(perMillion(Number.NaN)).toBeUndefined();
  });
});

const DATED = JSON.parse(readFileSync(new URL("./fixtures/litellm-dated.json", import.meta.url), "utf8"));

describe("importLitellm: dated names, odd prices, provider prefixes", () => {
  const anthropic = importLitellm(DATED, { providers: ["anthropic"] }, LITELLM_SOURCE);
  const openai = importLitellm(DATED, { providers: ["openai"] }, LITELLM_SOURCE);

  it("makes a dated snapshot that bills like its base model an alias of it, not a second row", () => {
    expect(anthropic.seed.models["claude-opus-4-1"]?.aliases).toEqual(["claude-opus-4-1-20250805"]);
    expect(anthropic.seed.models["claude-opus-4-1-20250805"]).toBeUndefined();
    expect(openai.seed.models["gpt-5"]?.aliases).toEqual(["gpt-5-2025-08-07"]);
    expect(openai.seed.models["gpt-4o"]?.aliases).toEqual(["gpt-4o-2024-08-06"]);
  });

  it("names the row after the base model when the file only has the dated snapshot", () => {
    expect(anthropic.seed.models["claude-sonnet-4-5"]).toMatchObject({
      input: 3,
      output: 15,
      aliases: ["claude-sonnet-4-5-20250929"],
    });
    expect(anthropic.notes).toContain(
      "claude-sonnet-4-5-20250929: imported as claude-sonnet-4-5, with claude-sonnet-4-5-20250929 as its alias",
    );
  });

  it("keeps a dated snapshot that bills differently as its own row, and says so", () => {
    expect(openai.seed.models["gpt-4o-2024-05-13"]).toMatchObject({ input: 5, output: 15 });
    expect(openai.notes).toContain("gpt-4o-2024-05-13: bills differently from gpt-4o, so it keeps its own row");
  });

  it("warns, for every provider, about a cache write below input, a tier missing a base price, and a missing 1-hour write", () => {
    expect(anthropic.warnings).toContain(
      "models.claude-haiku-4-5.cache_write: 0.125 is below input (1); a cache write costs at least the input it stores",
    );
    expect(anthropic.warnings).toContain(
      "models.claude-haiku-4-5.cache_write_1h: is missing, but anthropic sells 1-hour cache writes (other anthropic rows have one)",
    );
    const google = importLitellm(DATED, { providers: ["gemini"] }, LITELLM_SOURCE);
    expect(google.warnings).toEqual([
      "models.gemini-2.5-pro.long_context.cache_read: is missing while the base row has one (0.125); above 200000 tokens the gate would price it at the base price",
    ]);
    // OpenAI sells no 1-hour write in this file: no warning for its rows.
    expect(openai.warnings).toEqual([]);
  });

  it("strips LiteLLM's provider prefix, names Google as the seed does, and leaves Vertex's rows out", () => {
    const google = importLitellm(DATED, { providers: ["google"] }, LITELLM_SOURCE);
    expect(Object.keys(google.seed.models)).toEqual(["gemini-2.5-pro"]);
    expect(google.seed.models["gemini-2.5-pro"]).toMatchObject({ provider: "google", cache_read: 0.125 });
    expect(google.providers).toEqual(["google"]);
  });

  it("skips a key that is not a model name, such as __proto__, without touching any prototype", () => {
    expect(Object.keys(openai.seed.models)).toEqual(["gpt-4o", "gpt-4o-2024-05-13", "gpt-5"]);
    expect(openai.notes).toContain('"__proto__": skipped, not a model name the gate accepts');
    expect(Object.getPrototypeOf(openai.seed.models)).toBe(Object.prototype);
  });

  it("keeps LiteLLM's deprecation_date as retires_at, asking for the replacement by hand", () => {
    expect(anthropic.seed.models["claude-3-5-haiku"]).toMatchObject({
      retires_at: "2026-02-19",
      aliases: ["claude-3-5-haiku-20241022"],
    });
    expect(anthropic.notes).toContain(
      "claude-3-5-haiku-20241022: LiteLLM's deprecation_date 2026-02-19 is kept as retires_at; name its replaced_by by hand",
    );
  });

  it("records the file's origin in every row: a commit, or the local path", () => {
    const pinned = litellmSource({ commit: "0123456789abcdef0123456789abcdef01234567" });
    expect(pinned).toBe(
      "https://github.com/BerriAI/litellm/blob/0123456789abcdef0123456789abcdef01234567/model_prices_and_context_window.json",
    );
    const rows = Object.values(importLitellm(DATED, { providers: ["openai"] }, pinned).seed.models);
    expect(rows.every((row) => row.source === pinned)).toBe(true);
    expect(litellmSource({ path: "/tmp/prices dir/litellm.json" })).toBe("file:///tmp/prices%20dir/litellm.json");
    expect(() => litellmSource({ commit: "main; rm -rf /" })).toThrow("--commit must be a git commit hash");
  });
});
