import { describe, expect, it } from "vitest";
import { sessionCost } from "../../../src/ledger";
import { outcomeMismatch, realizedNet } from "../../../src/ledger/model/savings";
import { OPUS, SONNET_45 } from "../../fixtures/rows";
import { seedDecision } from "../../support/ledger-fixtures";

const ID = seedDecision().decision_id;

describe("realized net", () => {
  it("prices the note's second demonstration as the bill: the seed's +$0.23 is about −$0.037 at p = 0.8", () => {
    const decision = seedDecision();
    const outcome = { decision_id: ID, turns_after: 4, context_tokens: 150_000 };
    const recalled = realizedNet(decision, { ...outcome, recalled: true }) ?? NaN;
    const kept = realizedNet(decision, { ...outcome, recalled: false }) ?? NaN;
    // Cache-aware at h 4, q 0.9 (the prior, no cached_turns sent), P 150,000:
    // saving 0.1137, stub 0.001895, recall hop 0.18625 when recalled.
    expect(recalled).toBeCloseTo(0.1137 - 0.001895 - 0.18625, 12);
    expect(kept).toBeCloseTo(0.1137 - 0.001895, 12);
    expect(0.8 * recalled + 0.2 * kept).toBeCloseTo(-0.037195, 6);
  });

  it("averages to the cache-aware prediction when the outcome matches the priors", () => {
    // Worked example 1 decided in cache_aware mode: net 0.160755 at p 0.3, h 4, q 0.9, P 60,000.
    const decision = seedDecision({
      pricing_mode: "cache_aware",
      predicted_net_usd: 0.160755,
      inputs: { ...seedDecision().inputs, output_tokens: 20_000, recall_probability: 0.3, context_tokens: 60_000 },
    });
    const at = (recalled: boolean) => realizedNet(decision, { decision_id: ID, turns_after: 4, recalled }) ?? NaN;
    expect(0.3 * at(true) + 0.7 * at(false)).toBeCloseTo(0.160755, 9);
  });

  it("takes q from cached_turns ÷ turns_after when the outcome sends it", () => {
    const decision = seedDecision({ inputs: { ...seedDecision().inputs, context_tokens: 0 } });
    const warm = realizedNet(decision, { decision_id: ID, turns_after: 4, recalled: false, cached_turns: 4 }) ?? NaN;
    const cold = realizedNet(decision, { decision_id: ID, turns_after: 4, recalled: false, cached_turns: 0 }) ?? NaN;
    // q 1: written once then read 3 times; q 0: written on all 4 turns.
    expect(warm).toBeCloseTo(11_800 * (6.25e-6 + 3 * 0.5e-6), 12);
    expect(cold).toBeCloseTo(11_800 * 4 * 6.25e-6, 12);
  });

  it("prices a decision that did not fire at its prior p: the counterfactual that missed savings sum", () => {
    const decision = seedDecision({ fire: false, would_fire: false, reason_code: "net_not_positive" });
    const counterfactual = realizedNet(decision, { decision_id: ID, turns_after: 4, recalled: false }) ?? NaN;
    const p = 0.25;
    expect(counterfactual).toBeCloseTo(0.1137 - 0.001895 - p * (0.0125 + 0.0125), 12);
  });

  it("prices a cache-aware decision at its own cache write and placement", () => {
    const base = seedDecision({ pricing_mode: "cache_aware", inputs: { ...seedDecision().inputs, context_tokens: 0 } });
    const outcome = { decision_id: ID, turns_after: 4, recalled: false, cached_turns: 4 };
    const fiveMinutes = realizedNet(base, outcome) ?? NaN;
    const oneHour = realizedNet({ ...base, inputs: { ...base.inputs, cache_ttl: "1h" } }, outcome) ?? NaN;
    // Written once at the 1-hour price (cache_write_1h 10 for OPUS), then read 3 times.
    expect(fiveMinutes).toBeCloseTo(11_800 * (6.25e-6 + 3 * 0.5e-6), 12);
    expect(oneHour).toBeCloseTo(11_800 * (10e-6 + 3 * 0.5e-6), 12);
    const retro =
      realizedNet({ ...base, inputs: { ...base.inputs, offload_at: "retroactive", suffix_tokens: 5_000 } }, outcome) ??
      NaN;
    // Stubbing into cached history rewrites the 5,000 tokens after it: not the entry figure.
    expect(retro).not.toBeCloseTo(fiveMinutes, 6);
  });

  it("is zero carried at a realized horizon of 0, and null without a row", () => {
    expect(realizedNet(seedDecision(), { decision_id: ID, turns_after: 0, recalled: false })).toBe(0);
    expect(realizedNet(seedDecision({ row: null }), { decision_id: ID, turns_after: 3, recalled: false })).toBeNull();
  });

  it("prefers the decision's own context over the outcome's", () => {
    const decision = seedDecision({ inputs: { ...seedDecision().inputs, context_tokens: 0 } });
    expect(realizedNet(decision, { decision_id: ID, turns_after: 4, recalled: true, context_tokens: 0 })).toBeCloseTo(
      0.1137 - 0.001895 - 0.025,
      12,
    );
  });
});

describe("an outcome that cannot belong to its decision", () => {
  it("cannot recall a stub that a decision which did not fire never placed", () => {
    const mismatch = outcomeMismatch(seedDecision({ fire: false }), {
      decision_id: ID,
      turns_after: 2,
      recalled: true,
    });
    expect(mismatch?.path).toBe("recalled");
  });

  it("cannot restate a context the decision carried", () => {
    const decision = seedDecision({ inputs: { ...seedDecision().inputs, context_tokens: 60_000 } });
    expect(
      outcomeMismatch(decision, { decision_id: ID, turns_after: 2, recalled: false, context_tokens: 50_000 })?.path,
    ).toBe("context_tokens");
    expect(
      outcomeMismatch(decision, { decision_id: ID, turns_after: 2, recalled: false, context_tokens: 60_000 }),
    ).toBeNull();
  });
});

describe("a session's bill", () => {
  it("prices each usage field at its rate", () => {
    const usage = {
      input_tokens: 10_000,
      output_tokens: 2_000,
      cache_read_input_tokens: 1_000_000,
      cache_creation_input_tokens: 50_000,
    };
    expect(sessionCost(OPUS, 10, usage)).toBeCloseTo(0.05 + 0.05 + 0.5 + 0.3125, 12);
  });

  it("prices the long-context tier when the mean request is past its threshold", () => {
    const small = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 1_000_000 };
    expect(sessionCost(SONNET_45, 10, small)).toBeCloseTo(0.3, 12); // 100,000 a request: base
    expect(sessionCost(SONNET_45, 4, small)).toBeCloseTo(0.6, 12); // 250,000 a request: the tier
  });
});
