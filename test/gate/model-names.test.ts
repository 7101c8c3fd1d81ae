import { describe, expect, it } from "vitest";
import { decideStep, type NameHit, nameCandidates, resolveModelName } from "../../src/gate";

// A store as a seed holds it: rows by name, aliases pointing at them.
const store = (rows: Record<string, string[]>) => {
  const names = new Map<string, NameHit>();
  for (const [row, aliases] of Object.entries(rows)) {
    names.set(row, { canonical: row, via: "exact" });
    for (const alias of aliases) names.set(alias, { canonical: row, via: "alias" });
  }
  return (name: string) => names.get(name) ?? null;
};
const rows = store({
  "claude-sonnet-4": ["claude-sonnet-4-0"],
  "deepseek-chat": [],
  "gpt-4o": [],
  "gpt-4o-mini": [],
  "gemini-2.5-pro": [],
  "claude-opus-4-5": ["claude-opus-4-5-20251101"],
  "deepseek-v3": [],
});

describe("resolving a model name as users send it", () => {
  it.each([
    ["claude-sonnet-4", "claude-sonnet-4", "exact"],
    ["claude-sonnet-4-0", "claude-sonnet-4", "alias"],
    ["deepseek/deepseek-chat", "deepseek-chat", "routing_prefix"],
    ["openai/gpt-4o-mini", "gpt-4o-mini", "routing_prefix"],
    ["openrouter/anthropic/claude-sonnet-4", "claude-sonnet-4", "routing_prefix"],
    ["gemini/gemini-2.5-pro", "gemini-2.5-pro", "routing_prefix"],
    ["vertex_ai/gemini-2.5-pro", "gemini-2.5-pro", "routing_prefix"],
    ["@google/gemini-2.5-pro", "gemini-2.5-pro", "routing_prefix"],
    ["together_ai/deepseek-v3", "deepseek-v3", "routing_prefix"],
    ["OpenRouter/Anthropic/Claude-Sonnet-4", "claude-sonnet-4", "routing_prefix"],
    ["claude-sonnet-4-20250514", "claude-sonnet-4", "dated_suffix"],
    ["claude-sonnet-4@20250514", "claude-sonnet-4", "dated_suffix"],
    ["gpt-4o-2024-08-06", "gpt-4o", "dated_suffix"],
    ["vertex_ai/claude-sonnet-4@20250514", "claude-sonnet-4", "routing_prefix_and_dated_suffix"],
    ["bedrock/us.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4", "routing_prefix_and_dated_suffix"],
    ["anthropic/claude-opus-4-5-20251101", "claude-opus-4-5", "routing_prefix"],
  ])("prices %s as %s (%s)", (sent, canonical, from) => {
    expect(resolveModelName(sent, rows)).toMatchObject({ kind: "found", canonical, resolved_from: from });
  });

  it("finds nothing for a name no step reaches, and never strips a name to nothing", () => {
    expect(resolveModelName("mystery-model-9", rows)).toEqual({ kind: "none" });
    expect(resolveModelName("openai/", rows)).toEqual({ kind: "none" });
    expect(nameCandidates("openai/").routing_prefix).toEqual([]);
  });

  it("keeps a version that is part of the name: deepseek-v3 is not deepseek", () => {
    expect(resolveModelName("deepseek-v3", store({ deepseek: [] }))).toEqual({ kind: "none" });
  });

  it("prefers the exact row over any stripped name", () => {
    const both = store({ "openai/gpt-4o": [], "gpt-4o": [] });
    expect(resolveModelName("openai/gpt-4o", both)).toMatchObject({
      canonical: "openai/gpt-4o",
      resolved_from: "exact",
    });
  });

  it("refuses to guess when one step finds two rows, naming both", () => {
    const both = store({ "openai/gpt-4o": [], "gpt-4o": [] });
    expect(resolveModelName("openrouter/openai/gpt-4o", both)).toEqual({
      kind: "ambiguous",
      candidates: ["gpt-4o", "openai/gpt-4o"],
      resolved_from: "routing_prefix",
    });
  });

  it("is not ambiguous when two candidates are names of the same row", () => {
    const one = store({ "gpt-4o": ["openai/gpt-4o"] });
    expect(resolveModelName("openrouter/openai/gpt-4o", one)).toMatchObject({ kind: "found", canonical: "gpt-4o" });
    expect(decideStep([["x", "dated_suffix", null]])).toBeNull();
  });

  it("tries the dated-suffix step only when no prefix-stripped name has a row", () => {
    const dated = store({ "claude-sonnet-4-20250514": [], "claude-sonnet-4": [] });
    expect(resolveModelName("anthropic/claude-sonnet-4-20250514", dated)).toMatchObject({
      canonical: "claude-sonnet-4-20250514",
      resolved_from: "routing_prefix",
    });
  });

  it("works a name's candidates out once and holds them", () => {
    expect(nameCandidates("openrouter/openai/gpt-4o")).toBe(nameCandidates("openrouter/openai/gpt-4o"));
  });
});
