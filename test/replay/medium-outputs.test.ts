/**
 * @module test/replay/medium-outputs
 *
 * The economic pre-filter's claim (docs/design/economics.md §1.2), on transcripts of our own: cached sessions of many
 * medium outputs (2,000–8,000 real tokens each). Today's defaults (seed, or
 * cache_aware behind the 10,000-token pre-filter) stub nothing and save
 * nothing; cache_aware with the economic pre-filter (replay's default now:
 * no floor) saves money at both ends of replay's recall range, so it never
 * costs more than keeping everything even when every stubbed output is
 * recalled once.
 */
import { describe, expect, it } from "vitest";
import {
  gatePlan,
  gatePolicy,
  keepEverything,
  parseTranscript,
  priceBook,
  replayTrace,
  type SeedRow,
  type TraceReplay,
} from "../../src/replay";
import seed from "../../pricing.seed.json" with { type: "json" };
import { claudeCodeSession } from "./fixtures";

const prices = priceBook(seed.models as Record<string, SeedRow>);

// Characters at 0.5 real tokens each: 4,000–16,000 characters are 2,000–8,000 tokens.
const WORLD = [
  { turns: 60, outputChars: (k: number) => 4_000 + ((k * 7_919) % 12_000) },
  { turns: 40, outputChars: (k: number) => 6_000 + ((k * 104_729) % 6_000) },
  { turns: 30, outputChars: (k: number) => 12_000 + ((k * 31) % 4_000) },
];

function replayed(story: (typeof WORLD)[number]) {
  const trace = parseTranscript(claudeCodeSession(story), "medium.jsonl").trace!;
  const policies = [
    keepEverything(),
    gatePolicy("seed"),
    named(gatePolicy("cache_aware", { threshold: 10_000 }), "cache_aware_floor_10k"),
    named(gatePolicy("cache_aware"), "economic"),
    named(gatePlan({ horizon: 20, every: 5 }), "plan"),
  ];
  const result = replayTrace(trace, prices, policies) as TraceReplay;
  return (name: string) => result.policies.find((p) => p.name === name)!;
}

function named<P extends { name: string }>(policy: P, name: string): P {
  return { ...policy, name };
}

describe("replay on cached sessions of many medium outputs", () => {
  it("shows today's defaults stub nothing and save nothing: every output is under the 10,000-token pre-filter", () => {
    for (const story of WORLD) {
      const policy = replayed(story);
      for (const name of ["gate_seed", "cache_aware_floor_10k"]) {
        expect(policy(name).stubbed, name).toBe(0);
        expect(policy(name).saving_usd, name).toEqual([0, 0]);
      }
    }
  });

  it("shows the economic pre-filter saves money on every session, even with every stubbed output recalled once", () => {
    for (const story of WORLD) {
      const economic = replayed(story)("economic");
      expect(economic.stubbed).toBeGreaterThan(0);
      const [pessimistic, optimistic] = economic.saving_usd;
      expect(pessimistic).toBeGreaterThan(0);
      expect(optimistic).toBeGreaterThanOrEqual(pessimistic);
    }
  });

  it("shows the plan, asked every 5 calls, saves on the recalls replay detects", () => {
    for (const story of WORLD) expect(replayed(story)("plan").saving_usd[1]).toBeGreaterThan(0);
  });
});
