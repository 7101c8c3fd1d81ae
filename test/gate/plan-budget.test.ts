import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bestPlan,
  decidePlan,
  nodeBudget,
  PLAN_NODE_BUDGET,
  planModel,
  planTerms,
  type CachePriceRates,
  type PlanInputs,
  type PricingLookup,
} from "../../src/gate";
import { SONNET_45 } from "../fixtures/rows";
import { bruteForceNet, P1, tieredCase } from "../support/plan-fixtures";
import { runs } from "../support/runs";

const priced = (row: CachePriceRates): PricingLookup<CachePriceRates> => ({ status: "priced", row, canonical: "m" });

/**
 * The adversarial plan at the API's limits: 64 candidates of 3,100–4,100 tokens with nearly equal
 * value per token and a high recall prior, about 230k tokens on sonnet-4-5's 200k tier, so every
 * earliest stub's plan crosses the threshold and each knapsack repair finds near-ties it cannot
 * prune. With recalls restored in place a hop is priced where its stub sits (docs/economics.md), so
 * values differ by position and the whole search finishes at about 8,700 nodes: still past one plan's budget.
 */
const ADVERSARIAL: PlanInputs = {
  ...P1,
  recall_placement: "in_place",
  model_name: "claude-sonnet-4-5",
  large_offload_threshold_tokens: 1_000,
  segments: Array.from({ length: 64 }, (_, i) => ({
    id: `c${i}`,
    tokens: 3_100 + ((i * 401) % 1_000),
    recall_probability: 0.3 + (i % 10) / 1_000,
  })),
};

/** The nodes one plan's search branches at, with a budget of `nodes`. */
function nodesSpent(inputs: PlanInputs, row: CachePriceRates, nodes: number) {
  const budget = nodeBudget(nodes);
  const choice = bestPlan(planModel(inputs, row), budget);
  return { choice, spent: nodes - budget.left };
}

describe("one node budget for all of a plan's searches", () => {
  it("bounds the adversarial plan's whole search, and says it is not exact", () => {
    const n = ADVERSARIAL.segments.length;
    const { choice, spent } = nodesSpent(ADVERSARIAL, SONNET_45, PLAN_NODE_BUDGET);
    // Past the budget each of the 2n repairs follows only its greedy fill: at most n nodes each.
    expect(spent).toBeLessThanOrEqual(PLAN_NODE_BUDGET + 2 * n * n);
    expect(choice?.exact).toBe(false);
    // Given room, the same search finishes, past the budget, and finds a plan at least as good.
    const whole = nodesSpent(ADVERSARIAL, SONNET_45, 128 * PLAN_NODE_BUDGET);
    expect(whole.choice?.exact).toBe(true);
    expect(whole.spent).toBeGreaterThan(2 * PLAN_NODE_BUDGET);
    expect(whole.choice!.terms.net).toBeGreaterThanOrEqual(choice!.terms.net);

    const plan = decidePlan(ADVERSARIAL, priced(SONNET_45));
    expect(plan.exact).toBe(false);
    expect(plan.reason).toMatch(/; search cut at its node budget$/);
    // Still a real plan, priced exactly, and better than stubbing nothing.
    expect(plan.reason_code).toBe("plan_positive");
    expect(plan.net_saving_usd).toBeGreaterThan(0);
    const model = planModel(ADVERSARIAL, SONNET_45);
    const members = plan.stub.map((id) => model.candidates.findIndex((c) => c.id === id));
    expect(planTerms(model, members).net).toBe(plan.net_saving_usd);
    // And never worse than any candidate stubbed alone, which the search tries first.
    const alone = Math.max(...plan.candidates.map((c) => c.alone_net_saving_usd ?? -Infinity));
    expect(plan.net_saving_usd).toBeGreaterThanOrEqual(alone);
  });

  it("says exact: true where the search finished: worked example P1, an unpriced plan, no candidates", () => {
    expect(decidePlan(P1, priced(SONNET_45)).exact).toBe(true);
    expect(decidePlan(P1, { status: "unpriced" }).exact).toBe(true);
    expect(decidePlan({ ...P1, segments: [{ tokens: 5_000 }] }, priced(SONNET_45)).exact).toBe(true);
  });

  it("is never worse than stubbing nothing, nor better than brute force, with no budget at all", () => {
    const cases = fc.sample(tieredCase(10), { seed: 23_2026, numRuns: runs(400) });
    let cut = 0;
    for (const { inputs, row } of cases) {
      const choice = bestPlan(planModel(inputs, row), nodeBudget(0));
      if (choice === null) continue;
      if (!choice.exact) cut++;
      const net = choice.terms.net > 0 ? choice.terms.net : 0;
      expect(net).toBeGreaterThanOrEqual(0);
      expect(net).toBeLessThanOrEqual(bruteForceNet(inputs, row));
      expect(choice.terms.net).toBe(planTerms(planModel(inputs, row), choice.members).net);
    }
    // The check means something only if some searches were in fact cut.
    expect(cut).toBeGreaterThan(0);
  });
});
