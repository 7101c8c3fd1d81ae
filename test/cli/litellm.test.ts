import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { importLitellm, LITELLM_SOURCE, perMillion } from "../../scripts/pricing/litellm";
import { PricingSeedSchema } from "../../src/store/schema";

const SAMPLE = JSON.parse(readFileSync(new URL("./fixtures/litellm-sample.json", import.meta.url), "utf8"));

describe("importLitellm", () => {
  it("converts USD per token into USD per million, with the cache and 1-hour write prices and the 200k tier", () => {
    const { seed, notes } = importLitellm(SAMPLE, { models: ["claude-sonnet-4-5"] });
    expect(notes).toEqual([]);
    expect(seed.models["claude-sonnet-4-5"]).toEqual({
      input: 3,
      output: 15,
      cache_read: 0.3,
      cache_write: 3.75,
      cache_write_1h: 6,
      long_context: { threshold_tokens: 200_000, input: 6, output: 22.5, cache_read: 0.6, cache_write: 7.5, cache_write_1h: 12 },
      provider: "anthropic",
      source: LITELLM_SOURCE,
    });
  });

  it("selects a provider's text models, skipping and noting embeddings and invalid rows", () => {
    const { seed, notes } = importLitellm(SAMPLE, { provider: "openai" });
    expect(Object.keys(seed.models)).toEqual(["gpt-5", "gpt-5-mini"]);
    expect(seed.models["gpt-5-mini"]?.cache_read).toBe(0.025);
    expect(seed.models["gpt-5"]).toEqual({ input: 1.25, output: 10, cache_read: 0.125, provider: "openai", source: LITELLM_SOURCE });
    expect(notes).toEqual([
      expect.stringMatching(/^gpt-image-broken: skipped, the converted row is invalid: input: input price must not be negative/),
      "text-embedding-3-small: skipped, mode embedding is not a text-generation model",
    ]);
  });

  it("matches the provider by LiteLLM's name, so bedrock rows stay out of --provider anthropic", () => {
    expect(Object.keys(importLitellm(SAMPLE, { provider: "anthropic" }).seed.models)).toEqual([
      "claude-haiku-odd",
      "claude-opus-4-1",
      "claude-sonnet-4-5",
    ]);
  });

  it("keeps the first long-context tier when LiteLLM has several, and says so", () => {
    const { seed, notes } = importLitellm(SAMPLE, { models: ["gemini-tiered"] });
    expect(seed.models["gemini-tiered"]?.long_context).toEqual({ threshold_tokens: 128_000, input: 2, output: 8 });
    expect(notes).toEqual(["gemini-tiered: LiteLLM has tiers above 128000, 200000 tokens; only the first (128000) is kept"]);
  });

  it("writes a file the worker's own seed schema accepts", () => {
    const { seed } = importLitellm(SAMPLE, { models: ["claude-opus-4-1", "gemini-2.5-pro", "gpt-5"] });
    expect(PricingSeedSchema.safeParse(seed).success).toBe(true);
    expect(seed.models["gemini-2.5-pro"]).toMatchObject({ cache_read: 0.3125, long_context: { threshold_tokens: 200_000, input: 2.5 } });
  });

  it("refuses a named model the file does not have, and a provider it does not know", () => {
    expect(() => importLitellm(SAMPLE, { models: ["gpt-5", "gpt-9"] })).toThrow("not in the LiteLLM file: gpt-9");
    expect(() => importLitellm(SAMPLE, { provider: "nobody" })).toThrow('no model in the LiteLLM file has litellm_provider "nobody"');
  });

  it("rounds away float noise", () => {
    expect(2.5e-8 * 1e6).not.toBe(0.025);
    expect(perMillion(2.5e-8)).toBe(0.025);
    expect(perMillion(3.125e-7)).toBe(0.3125);
    expect(perMillion(Number.NaN)).toBeUndefined();
  });
});
