import { describe, expect, it } from "vitest";
import { diffSource, type KvPricing } from "../../src/sync/diff";
import type { PricingRow } from "../../src/storage/schemas/schema";

const URL_ = "https://example.com/model_prices_and_context_window.json";
const NOW = Date.parse("2026-12-01T21:00:00Z");
const entry = (input: number, output: number, read: number) => ({
  litellm_provider: "gemini",
  mode: "chat",
  input_cost_per_token: input / 1e6,
  output_cost_per_token: output / 1e6,
  cache_read_input_token_cost: read / 1e6,
});
const ROW: PricingRow = {
  input: 2,
  output: 10,
  cache_read: 0.2,
  provider: "google",
  scheduled: [
    { effective_at: "2026-12-01T00:00:00Z", input: 4, output: 20, cache_read: 0.4 },
    { effective_at: "2027-01-01T00:00:00Z", input: 8 },
  ],
};
const kv = (row: PricingRow): KvPricing => ({ rows: new Map([["gemini-4-argon", row]]), aliases: new Map() });
const diff = (input: number, output: number, read: number) =>
  diffSource(new Map([["gemini/gemini-4-argon", entry(input, output, read)]]), kv(ROW), new Set(["google"]), URL_, NOW);

describe("the price sync on a row with scheduled changes", () => {
  it("proposes nothing when the source has the prices in force now", () => {
    expect(diff(4, 20, 0.4)).toEqual({ ok: true, changes: [], skipped: [] });
  });

  it("proposes a change as today's: new prices, the changes in force folded in, those to come kept", () => {
    const result = diff(5, 20, 0.4);
    if (!result.ok) throw new Error(result.detail);
    const [change] = result.changes;
    expect(change?.fields).toEqual([{ field: "input", from: 4, to: 5 }]);
    expect(change?.after).toEqual({
      input: 5,
      output: 20,
      cache_read: 0.4,
      provider: "google",
      scheduled: [{ effective_at: "2027-01-01T00:00:00Z", input: 8 }],
      source: URL_,
    });
  });
});
