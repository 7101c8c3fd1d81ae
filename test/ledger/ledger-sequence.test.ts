import { describe, expect, it } from "vitest";
import { confidenceSequence, meanSequence } from "../../src/ledger";
import { MIN_SESSIONS_PER_ARM, sequenceRadius } from "../../src/ledger/stats/sequence";

// docs/design/ledger.md §4.6, worked example S1 (holdout 0.2, so π = 0.8). The expected
// figures are the note's, reproduced independently in python3 as well.
const S1 = [
  [1, 5.0],
  [0, 6.0],
  [1, 4.5],
  [1, 5.5],
  [0, 6.5],
  [1, 4.0],
  [1, 5.0],
  [1, 4.8],
  [0, 5.9],
  [1, 5.2],
].map(([a, y]) => ({ treated: a === 1, cost: y! }));

describe("the confidence sequence", () => {
  it("matches worked example S1 to the last digit", () => {
    const s = confidenceSequence(S1, 0.8);
    expect(s.estimate).toBe(-1.2281746031746035);
    expect(s.interval).toEqual([-8.53631541400522, 6.079966207656012]);
    expect([s.sessions, s.treated, s.held_out]).toEqual([10, 7, 3]);
  });

  it("gives no verdict while either arm has fewer than 30 sessions, however clear the difference", () => {
    const sessions = Array.from({ length: 200 }, (_, i) => ({
      treated: i % 10 !== 0,
      cost: i % 10 !== 0 ? 10 + (i % 3) : 1 + (i % 2),
    }));
    const few = confidenceSequence(sessions, 0.9);
    expect(few.held_out).toBeLessThan(MIN_SESSIONS_PER_ARM);
    expect(few.interval![0]).toBeGreaterThan(0);
    expect(few.verdict).toBe("inconclusive");
    expect(few.withheld).toBe("too_few_sessions");
  });

  it("gives no verdict when the spread is zero", () => {
    const flat = Array.from({ length: 100 }, (_, i) => ({ treated: i % 2 === 0, cost: 0 }));
    expect(confidenceSequence(flat, 0.5)).toMatchObject({ verdict: "inconclusive", withheld: "zero_spread" });
  });

  it("says losing when treatment clearly costs more, and saving when it clearly costs less", () => {
    const world = (delta: number) =>
      Array.from({ length: 400 }, (_, i) => {
        const treated = i % 2 === 0;
        return { treated, cost: 5 + ((i * 7919) % 13) / 13 + (treated ? delta : 0) };
      });
    expect(confidenceSequence(world(2), 0.5).verdict).toBe("losing");
    expect(confidenceSequence(world(-2), 0.5).verdict).toBe("saving");
  });

  it("narrows as sessions accumulate", () => {
    expect(sequenceRadius(1000)).toBeLessThan(sequenceRadius(100));
    expect(sequenceRadius(100)).toBeLessThan(sequenceRadius(10));
  });

  it("over given values says losing when their upper end is below zero savings, once enough sessions are in", () => {
    const costs = Array.from({ length: 40 }, (_, i) => 0.2 + (i % 5) / 100);
    expect(meanSequence(costs).verdict).toBe("losing");
    expect(meanSequence(costs.slice(0, 10))).toMatchObject({ verdict: "inconclusive", withheld: "too_few_sessions" });
  });
});
