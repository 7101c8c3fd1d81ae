import { describe, expect, it } from "vitest";
import { parseTranscript, priceBook, replayTrace, verdictOf, type SeedRow, type TraceReplay } from "../../src/replay";
import seed from "../../pricing.seed.json" with { type: "json" };
import { claudeCodeSession } from "./fixtures";

const prices = priceBook(seed.models as Record<string, SeedRow>);

// The economic pre-filter's setting (docs/design/economics.md §1.2), on a transcript of our own: a cached Claude Code session of many medium
// outputs (4,000–6,000 characters, 2,000–3,000 real tokens), calls 30 s apart.
const session = claudeCodeSession({ turns: 60, outputChars: (k) => 4_000 + ((k * 7_919) % 2_000) });
const result = replayTrace(parseTranscript(session, "medium.jsonl").trace!, prices) as TraceReplay;
const policy = (name: string) => result.policies.find((p) => p.name === name)!;

describe("replay on a cached session of many medium outputs", () => {
  it("shows the size rules stub nothing: every output is under the 10,000-token pre-filter or their own threshold", () => {
    for (const name of ["gate_seed", "size_only", "deepagents_evict", "claude_code_persist"]) {
      expect(policy(name).stubbed, name).toBe(0);
      expect(verdictOf(policy(name).saving_usd), name).toBe("no change");
    }
  });

  it("shows the cache-aware gate, whose pre-filter is the break-even, saves at both ends of the recall range", () => {
    expect(policy("gate_cache_aware").stubbed).toBeGreaterThan(0);
    expect(verdictOf(policy("gate_cache_aware").saving_usd)).toBe("saves");
    // The plan prices a retroactive stub's rewrite of the cached suffix: it never costs more than keeping everything.
    expect(policy("gate_plan").saving_usd[0]).toBeGreaterThanOrEqual(0);
  });

  it("shows a rolling mask of the last 10 costs more than keeping everything, because it rewrites the cached history on most calls", () => {
    const mask = policy("mask_last_10");
    expect(verdictOf(mask.saving_usd)).toBe("costs");
    expect(mask.cache_writes_caused_tokens).toBeGreaterThan(0);
    // Moving the boundary only every 10 calls rewrites a tenth as often: it loses far less.
    expect(policy("mask_last_10_every_10").saving_usd[1]).toBeGreaterThan(mask.saving_usd[1]);
  });

  it("keeps the bill model honest on that session: the recorded bill reproduced within 0.01%", () => {
    expect(Math.abs(result.check!.error_pct)).toBeLessThan(0.01);
  });
});
