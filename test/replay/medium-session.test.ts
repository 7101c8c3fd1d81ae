/**
 * @module test/replay/medium-session
 *
 * The economic pre-filter (docs/design/economics.md §1.2) on a transcript of our own: one cached Claude Code
 * session of 60 calls whose tool outputs are 1,000–6,000 real tokens
 * (fixtures.ts writes it from the format's documented fields, usage with
 * cache reads and writes). Today's defaults (seed, or cache_aware behind the
 * 10,000-token pre-filter) stub nothing; the gate as the design has it
 * (cache_aware with the economic pre-filter, the plan on its cadence) saves,
 * and never costs more than keeping everything at either end of the recall
 * range.
 */
import { describe, expect, it } from "vitest";
import {
  clearToolUses,
  gatePlan,
  gatePolicy,
  keepEverything,
  observationMask,
  parseTranscript,
  priceBook,
  replayTrace,
  verdictOf,
  type SeedRow,
  type TraceReplay,
} from "../../src/replay";
import seed from "../../pricing.seed.json" with { type: "json" };
import { claudeCodeSession, TOKENS_PER_CHAR } from "./fixtures";

const prices = priceBook(seed.models as Record<string, SeedRow>);

/** 2,000–12,000 characters: 1,000–6,000 real tokens at 0.5 tokens a character. */
const MEDIUM_SESSION = { turns: 60, outputChars: (k: number) => 2_000 + ((k * 7_919) % 10_001) };

const trace = parseTranscript(claudeCodeSession(MEDIUM_SESSION), "medium-session.jsonl").trace!;
const result = replayTrace(trace, prices, [
  keepEverything(),
  gatePolicy("seed"),
  { ...gatePolicy("cache_aware", { threshold: 10_000 }), name: "cache_aware_floor_10k" },
  gatePolicy("cache_aware"),
  gatePlan(),
  { ...gatePlan({ horizon: 20 }), name: "plan_horizon_20" },
  clearToolUses(),
  observationMask({ every: 10 }),
]) as TraceReplay;
const policy = (name: string) => result.policies.find((p) => p.name === name)!;

describe("replay on a cached session of 60 medium outputs (1,000–6,000 tokens)", () => {
  it("is the session the issue describes: 60 calls, every output between 1,000 and 6,000 tokens, billed with the cache", () => {
    expect(trace.calls.length).toBe(60);
    for (let k = 0; k < 60; k++) {
      const tokens = MEDIUM_SESSION.outputChars(k) * TOKENS_PER_CHAR;
      expect(tokens).toBeGreaterThanOrEqual(1_000);
      expect(tokens).toBeLessThanOrEqual(6_000);
    }
    expect(Math.abs(result.check!.error_pct)).toBeLessThan(0.01);
  });

  it("shows today's defaults, seed and cache_aware behind the 10,000-token pre-filter, stub nothing and save nothing", () => {
    for (const name of ["gate_seed", "cache_aware_floor_10k"]) {
      expect(policy(name).stubbed, name).toBe(0);
      expect(policy(name).saving_usd, name).toEqual([0, 0]);
    }
  });

  it("shows cache_aware with the economic pre-filter saves at both ends of the recall range", () => {
    const gate = policy("gate_cache_aware");
    expect(gate.params).toMatchObject({ pre_filter: "economic", floor: "none" });
    expect(gate.stubbed).toBeGreaterThan(0);
    const [pessimistic, detected] = gate.saving_usd;
    expect(pessimistic).toBeGreaterThan(0);
    expect(detected).toBeGreaterThanOrEqual(pessimistic);
    expect(verdictOf(gate.saving_usd)).toBe("saves");
  });

  it("shows the plan on its cadence never costs more than keeping everything, and with a 20-call horizon saves at both ends", () => {
    expect(policy("gate_plan").params).toMatchObject({ every: 10, cadence: "plan_cadence", pre_filter: "economic" });
    expect(policy("gate_plan").saving_usd[0]).toBeGreaterThanOrEqual(0);
    const plan = policy("plan_horizon_20");
    expect(plan.stubbed).toBeGreaterThan(0);
    expect(verdictOf(plan.saving_usd)).toBe("saves");
  });

  it("shows the plan beats clear_tool_uses and a mask moved every 10 calls at the pessimistic end, where both of those cost", () => {
    const plan = policy("plan_horizon_20").saving_usd[0];
    for (const name of ["clear_tool_uses", "mask_last_10_every_10"]) {
      expect(policy(name).saving_usd[0], name).toBeLessThan(0);
      expect(plan, name).toBeGreaterThan(policy(name).saving_usd[0]);
    }
  });
});
