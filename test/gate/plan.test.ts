import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  aloneRequest,
  bestPlan,
  decideOutcome,
  decidePlan,
  evaluateCacheAwareGate,
  planModel,
  planTerms,
  type CachePriceRates,
  type PlanInputs,
  type PricingLookup,
} from "../../src/gate";
import { OPUS, SONNET_45 } from "../fixtures/rows";
import { bruteForceNet, P1, planRequest, tieredCase, untieredRow } from "../support/plan-fixtures";
import { runs } from "../support/runs";

// Fixed, so CI is reproducible; change it to explore.
const SEED = 14_2026;

const priced = (row: CachePriceRates): PricingLookup<CachePriceRates> => ({ status: "priced", row, canonical: "m" });

/** The net the search answers with: its best plan's, or 0 when it keeps everything. */
function searchNet(inputs: PlanInputs, row: CachePriceRates): number {
  const choice = bestPlan(planModel(inputs, row));
  return choice === null || choice.terms.net <= 0 ? 0 : choice.terms.net;
}

/** R1/R2 of docs/design/economics.md §4: one output of 20,000 tokens after 60,000 of history, with A tokens after it. */
const retroactive = (after: number, ttl: "5m" | "1h" = "5m"): PlanInputs => ({
  ...P1,
  cache_ttl: ttl,
  segments: [{ tokens: 60_000 }, { id: "out", tokens: 20_000, recall_probability: 0.3 }, { tokens: after }],
});

describe("worked example P1: the plan stubs all three outputs, though two lose money alone", () => {
  it("stubs c1, c2 and c3 for a net of ≈ $0.277302 when recalls append, with c1 −0.1056, c2 −0.1480 and c3 +0.1066 alone", () => {
    const plan = decidePlan(P1, priced(OPUS));
    expect(plan.stub).toEqual(["c1", "c2", "c3"]);
    // scripts/reference/economics.py examples: 443683/1600000, exactly.
    expect(plan.net_saving_usd).toBeCloseTo(0.277301875, 12);
    expect(plan.keep_cost_usd).toBeCloseTo(0.43645, 12);
    expect(plan.plan_cost_usd).toBeCloseTo(0.159148125, 12);
    const alone = plan.candidates.map((c) => c.alone_net_saving_usd ?? NaN);
    expect(alone[0]).toBeCloseTo(-0.1056, 12);
    expect(alone[1]).toBeCloseTo(-0.148016875, 12);
    expect(alone[2]).toBeCloseTo(0.10656875, 12);
    expect(plan.reason).toBe(
      "stub 3 of 3 candidates: net=$0.2773 (keep=$0.4364 − plan=$0.1591); cached prefix 8000 of 101500 tokens, " +
        "7100 written again; H=4 q=0.90 ttl=5m tier=none model=claude-opus-4-6",
    );
  });

  it("stubs c1, c2 and c3 for a net of ≈ $0.177683 when recalls restore in place, with c1 −0.1589, c2 −0.1933 and c3 +0.1055 alone", () => {
    const plan = decidePlan({ ...P1, recall_placement: "in_place" }, priced(OPUS));
    expect(plan.reason_code).toBe("plan_positive");
    expect(plan.stub).toEqual(["c1", "c2", "c3"]);
    expect(plan.net_saving_usd).toBeCloseTo(0.177683125, 12);
    // keep: 101,500 · 4 · 1.075e-6; plan: 8,000 · 4 · 1.075e-6 + 7,100 · 9.475e-6 + the three recall hops,
    // each reading the cache up to its stub and writing after it (python3 over exact fractions agrees).
    expect(plan.keep_cost_usd).toBeCloseTo(0.43645, 12);
    expect(plan.plan_cost_usd).toBeCloseTo(0.258766875, 12);
    expect(plan.rewrite_from_tokens).toBe(8_000);
    expect(plan.rewritten_tokens).toBe(7_100);
    expect(plan.candidates.map((c) => [c.id, c.stubbed])).toEqual([
      ["c1", true],
      ["c2", true],
      ["c3", true],
    ]);
    const alone = plan.candidates.map((c) => c.alone_net_saving_usd ?? NaN);
    expect(alone[0]).toBeCloseTo(-0.1589025, 12);
    expect(alone[1]).toBeCloseTo(-0.193298125, 12);
    expect(alone[2]).toBeCloseTo(0.10553375, 12);
    expect(plan.reason).toBe(
      "stub 3 of 3 candidates: net=$0.1777 (keep=$0.4364 − plan=$0.2588); cached prefix 8000 of 101500 tokens, " +
        "7100 written again; H=4 q=0.90 ttl=5m recall_placement=in_place tier=none model=claude-opus-4-6",
    );
  });
});

describe("a one-candidate plan is the retroactive gate for it", () => {
  it("R1: an output with 30,000 cached tokens after it does not pay (net ≈ −0.10767 appended, −0.154245 in place)", () => {
    const appended = decidePlan(retroactive(30_000), priced(OPUS));
    expect(appended.stub).toEqual([]);
    expect(appended.candidates[0]?.alone_net_saving_usd).toBeCloseTo(-0.10767, 12);
    const plan = decidePlan({ ...retroactive(30_000), recall_placement: "in_place" }, priced(OPUS));
    expect(plan.reason_code).toBe("plan_not_positive");
    expect(plan.stub).toEqual([]);
    expect(plan.net_saving_usd).toBe(0);
    expect(plan.plan_cost_usd).toBe(plan.keep_cost_usd);
    expect(plan.rewrite_from_tokens).toBe(110_000);
    expect(plan.rewritten_tokens).toBe(0);
    expect(plan.candidates[0]?.alone_net_saving_usd).toBeCloseTo(-0.154245, 12);
    expect(plan.reason).toMatch(/^keep all: the best plan \(stub 1 of 1 candidates\) has net=\$-0\.1542/);
  });

  it("R2: the same output last in the history pays (net ≈ 0.057255)", () => {
    const plan = decidePlan(retroactive(0), priced(OPUS));
    expect(plan.stub).toEqual(["out"]);
    expect(plan.net_saving_usd).toBeCloseTo(0.057255, 12);
    expect(plan.rewrite_from_tokens).toBe(60_000);
    expect(plan.rewritten_tokens).toBe(200);
  });

  it("R2 on the 1-hour cache prices every write at cache_write_1h (net ≈ 0.07728)", () => {
    // m = 0.9 · 0.5e-6 + 0.1 · 10e-6 = 1.45e-6; saving 0.116, stub 200 · 14.35e-6, recall 0.3 · 0.1195.
    expect(decidePlan(retroactive(0, "1h"), priced(OPUS)).net_saving_usd).toBeCloseTo(0.07728, 12);
  });
});

describe("the search against brute force over every subset", () => {
  it("equals brute force on every random case without a tier, up to 12 candidates", () => {
    fc.assert(
      fc.property(planRequest(12), untieredRow, (inputs, row) => {
        expect(searchNet(inputs, row)).toBe(bruteForceNet(inputs, row));
      }),
      { seed: SEED, numRuns: runs(1_000) },
    );
  });

  it("with a long-context tier, equals brute force on at least 99% of cases and never falls below 99% of its net", () => {
    const cases = fc.sample(tieredCase(12), { seed: SEED, numRuns: runs(1_500) });
    let equal = 0;
    let crossing = 0;
    for (const { inputs, row } of cases) {
      const exact = bruteForceNet(inputs, row);
      const found = searchNet(inputs, row);
      if (found === exact) equal++;
      expect(found).toBeLessThanOrEqual(exact);
      expect(found).toBeGreaterThanOrEqual(0.99 * exact);
      const model = planModel(inputs, row);
      if (model.keep.tiered && model.candidates.length > 0) crossing++;
    }
    expect(equal / cases.length).toBeGreaterThanOrEqual(0.99);
    // The generator must put most histories in the tier, or the check proves little.
    expect(crossing / cases.length).toBeGreaterThan(0.5);
  });

  it("is exact on a tier crossing that needs a loss-making stub to drop under the threshold", () => {
    // Keeping all is 240,000 tokens, in sonnet-4-5's tier. Stubbing either output alone leaves the
    // request in the tier (225,200 or 210,200); only both get it under 200,000 (195,400), though
    // "big" is recalled for sure.
    const inputs: PlanInputs = {
      ...P1,
      model_name: "claude-sonnet-4-5",
      segments: [
        { tokens: 190_000 },
        { id: "big", tokens: 30_000, recall_probability: 1 },
        { tokens: 5_000 },
        { id: "small", tokens: 15_000, recall_probability: 0 },
      ],
    };
    expect(searchNet(inputs, SONNET_45)).toBe(bruteForceNet(inputs, SONNET_45));
    expect(decidePlan(inputs, priced(SONNET_45)).stub).toEqual(["big", "small"]);
  });
});

describe("the answer", () => {
  it("never stubs a candidate below the pre-filter, and prices it as the gate would not (null)", () => {
    fc.assert(
      fc.property(planRequest(10), untieredRow, (inputs, row) => {
        const plan = decidePlan(inputs, priced(row));
        const threshold = inputs.large_offload_threshold_tokens ?? 10_000;
        const ids = inputs.segments.filter((s) => s.id !== undefined);
        expect(plan.candidates.map((c) => c.id)).toEqual(ids.map((s) => s.id));
        ids.forEach((segment, k) => {
          const line = plan.candidates[k]!;
          if (segment.tokens < threshold) {
            expect(line.stubbed).toBe(false);
            expect(line.alone_net_saving_usd).toBeNull();
          } else if (plan.reason_code !== "no_candidates") {
            expect(line.alone_net_saving_usd).toEqual(expect.any(Number));
          }
        });
      }),
      { seed: SEED, numRuns: runs(300) },
    );
  });

  it("lists stubs in history order and adds up: net ≥ every candidate alone, keep − plan = net, prefix + rewrite = N′", () => {
    fc.assert(
      fc.property(planRequest(16), untieredRow, (inputs, row) => {
        const plan = decidePlan(inputs, priced(row));
        const order = plan.candidates.filter((c) => c.stubbed).map((c) => c.id);
        expect(plan.stub).toEqual(order);
        // A row without a read price at q > 0 stubs nothing (the gap rule), whatever the candidates would save.
        if (plan.reason_code === "pricing_incomplete") expect(plan.stub).toEqual([]);
        else {
          for (const c of plan.candidates) {
            if (c.alone_net_saving_usd !== null)
              expect(plan.net_saving_usd).toBeGreaterThanOrEqual(c.alone_net_saving_usd);
          }
        }
        const scale = Math.max(1e-12, Math.abs(plan.keep_cost_usd));
        expect(Math.abs(plan.keep_cost_usd - plan.plan_cost_usd - plan.net_saving_usd) / scale).toBeLessThan(1e-9);
        const total = inputs.segments.reduce((sum, s) => sum + s.tokens, 0);
        const freed = inputs.segments
          .filter((s) => s.id !== undefined && plan.stub.includes(s.id))
          .reduce((sum, s) => sum + s.tokens - (s.stub_tokens ?? inputs.stub_tokens ?? 200), 0);
        if (plan.stub.length > 0) expect(plan.rewrite_from_tokens + plan.rewritten_tokens).toBe(total - freed);
        else expect([plan.rewrite_from_tokens, plan.rewritten_tokens]).toEqual([total, 0]);
      }),
      { seed: SEED, numRuns: runs(300) },
    );
  });

  it("answers no_candidates without pricing when no candidate reaches the pre-filter", () => {
    const small = { ...P1, large_offload_threshold_tokens: 50_000 };
    const plan = decidePlan(small, { status: "unavailable", detail: "KV read timed out" });
    expect(plan.reason_code).toBe("no_candidates");
    expect(plan.reason).toBe("no candidates at or above large_offload_threshold (50000 tokens): 3 below it");
    expect(plan.candidates.every((c) => !c.stubbed && c.alone_net_saving_usd === null)).toBe(true);
    expect(plan.rewrite_from_tokens).toBe(101_500);
    expect(decidePlan({ ...P1, segments: [{ tokens: 5 }] }, priced(OPUS)).reason).toBe(
      "no candidates: no segment has an id",
    );
  });

  it("never stubs when the model is unpriced or pricing cannot be read, and says why", () => {
    const unpriced = decidePlan(P1, { status: "unpriced" });
    expect([unpriced.reason_code, unpriced.stub, unpriced.reason]).toEqual([
      "unpriced",
      [],
      "no MODEL_PRICING row for 'claude-opus-4-6'",
    ]);
    const down = decidePlan(P1, { status: "unavailable", detail: "KV read timed out after 100 ms" });
    expect([down.reason_code, down.stub, down.net_saving_usd]).toEqual(["pricing_unavailable", [], 0]);
    expect(down.reason).toBe("pricing unavailable for 'claude-opus-4-6': KV read timed out after 100 ms");
  });

  it("keeps everything at horizon 0, where nothing is carried and a stub can only cost a recall", () => {
    const plan = decidePlan({ ...P1, horizon: 0 }, priced(OPUS));
    expect([plan.reason_code, plan.stub, plan.keep_cost_usd]).toEqual(["plan_not_positive", [], 0]);
  });
});

describe("a one-candidate plan and the retroactive gate", () => {
  const anyRow = fc.oneof(
    untieredRow,
    tieredCase(4).map(({ row }) => row),
  );

  it("agree to the last bit: every candidate's plan alone is the gate's net, and so is its alone_net_saving_usd", () => {
    fc.assert(
      fc.property(planRequest(6), anyRow, (inputs, row) => {
        const model = planModel(inputs, row);
        const plan = decidePlan(inputs, priced(row));
        model.candidates.forEach((candidate, k) => {
          const gate = evaluateCacheAwareGate(aloneRequest(inputs, model, candidate), row).net_saving_usd;
          expect(Object.is(planTerms(model, [k]).net, gate)).toBe(true);
          expect(Object.is(plan.candidates.find((c) => c.id === candidate.id)?.alone_net_saving_usd, gate)).toBe(true);
        });
      }),
      { seed: SEED, numRuns: runs(1_000) },
    );
  });

  it("agree on the answer: a history with one candidate stubs it exactly when the gate fires, for the gate's net", () => {
    fc.assert(
      fc.property(planRequest(1), anyRow, (inputs, row) => {
        const model = planModel(inputs, row);
        const candidate = model.candidates[0];
        if (candidate === undefined) return;
        const gate = decideOutcome("cache_aware", aloneRequest(inputs, model, candidate), priced(row));
        const plan = decidePlan(inputs, priced(row));
        expect(plan.reason_code === "pricing_incomplete").toBe(gate.reason_code === "pricing_incomplete");
        expect(plan.stub).toEqual(gate.fire ? [candidate.id] : []);
        expect(plan.net_saving_usd).toBe(gate.fire ? gate.net_saving_usd : 0);
      }),
      { seed: SEED, numRuns: runs(1_000) },
    );
  });

  it("R1 through the gate itself: the same −0.154245 both ways", () => {
    const inputs: PlanInputs = { ...retroactive(30_000), recall_placement: "in_place" };
    const model = planModel(inputs, OPUS);
    const gate = evaluateCacheAwareGate(aloneRequest(inputs, model, model.candidates[0]!), OPUS);
    expect(gate.fire).toBe(false);
    expect(gate.suffix_rewrite_cost_usd).toBeCloseTo(0.15525, 12);
    expect(planTerms(model, [0]).net).toBe(gate.net_saving_usd);
  });
});
