import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { knapsack, KNAPSACK_NODE_LIMIT, nodeBudget } from "../../src/gate";
import { runs } from "../support/runs";

/** The greatest value over every subset that fits, by enumeration. */
function bruteForce(values: number[], weights: number[], capacity: number, strict: boolean): number {
  let best = 0;
  for (let mask = 0; mask < 1 << values.length; mask++) {
    let value = 0;
    let weight = 0;
    values.forEach((v, i) => {
      if (mask & (1 << i)) {
        value += v;
        weight += weights[i]!;
      }
    });
    if ((strict ? weight < capacity : weight <= capacity) && value > best) best = value;
  }
  return best;
}

const total = (values: number[], picked: number[]) => picked.reduce((sum, i) => sum + values[i]!, 0);

describe("the knapsack the tier search uses", () => {
  it("finds the best subset that fits, as enumeration does, within or strictly below the capacity", () => {
    const items = fc.array(
      fc.record({ value: fc.integer({ min: -50, max: 1_000 }), weight: fc.integer({ min: 1, max: 500 }) }),
      {
        maxLength: 12,
      },
    );
    fc.assert(
      fc.property(items, fc.integer({ min: 0, max: 3_000 }), fc.boolean(), (list, capacity, strict) => {
        const values = list.map((item) => item.value);
        const weights = list.map((item) => item.weight);
        const picked = knapsack(values, weights, capacity, { strict }) ?? [];
        const weight = picked.reduce((sum, i) => sum + weights[i]!, 0);
        if (picked.length > 0) expect(strict ? weight < capacity : weight <= capacity).toBe(true);
        expect(total(values, picked)).toBe(bruteForce(values, weights, capacity, strict));
      }),
      { seed: 14_2026, numRuns: runs(500) },
    );
  });

  it("returns the greedy fill when its node budget runs out at once, and says the search was cut", () => {
    // Best value per weight first: 6/1, 10/2, 12/3; the greedy fill takes the first two, then 12 no longer fits.
    const budget = nodeBudget(1);
    expect(knapsack([6, 10, 12], [1, 2, 3], 5, { budget })).toEqual([0, 1]);
    expect(budget.cut).toBe(true);
    const ample = nodeBudget(KNAPSACK_NODE_LIMIT);
    expect(knapsack([6, 10, 12], [1, 2, 3], 5, { budget: ample })).toEqual([1, 2]);
    expect(ample.cut).toBe(false);
  });

  it("shares one budget between searches: what the first spends, the second cannot", () => {
    const values = Array.from({ length: 12 }, (_, i) => 100 + (i % 5));
    const weights = Array.from({ length: 12 }, (_, i) => 100 + ((i * 7) % 5));
    const alone = nodeBudget(KNAPSACK_NODE_LIMIT);
    knapsack(values, weights, 650, { budget: alone });
    expect(alone.cut).toBe(false);
    const spent = KNAPSACK_NODE_LIMIT - alone.left;
    expect(spent).toBeGreaterThan(20);
    const shared = nodeBudget(spent + 10);
    knapsack(values, weights, 650, { budget: shared });
    expect(shared.cut).toBe(false);
    // The second search starts with 10 nodes and stops short of an exact answer.
    knapsack(values, weights, 650, { budget: shared });
    expect(shared.cut).toBe(true);
    expect(shared.left).toBeLessThanOrEqual(0);
  });

  it("answers null when no subset that fits beats the floor", () => {
    expect(knapsack([6, 10, 12], [1, 2, 3], 5, { above: 22 })).toBeNull();
    expect(knapsack([6, 10, 12], [1, 2, 3], 5, { above: 21.5 })).toEqual([1, 2]);
    expect(knapsack([6], [2], 2, { strict: true })).toBeNull();
  });
});
