import { describe, expect, it } from "vitest";
import { cupedRows, openingSequence } from "../../src/learning/refresh/opening";
import type { ToolSessionRow } from "../../src/ledger";
import { falseOpenings } from "../../scripts/simulate/breaker-alpha";
import { sessionsToOpen } from "../../scripts/simulate/breaker-power";

// The breaker's opening test (src/learning/refresh/opening.ts, docs/design/learning.md §4.7), small: the full table is
// `npm run simulate:breaker` (docs/learning.md § The breaker's α).
const HELD = "000100100001100000001101100000011101010110000010000010010000".split("").map(Number);
const COST = [
  0.712, 1.715, 0.881, 1.136, 0.427, 0.784, 0.822, 3.439, 4.4, 0.373, 0.632, 1.91, 0.136, 0.881, 1.27, 4.921, 2.79,
  1.009, 0.968, 1.09, 4.588, 0.652, 1.033, 1.423, 0.886, 1.149, 0.46, 1.384, 0.898, 4.493, 2.69, 0.976, 1.951, 0.712,
  4.009, 0.995, 2.509, 0.275, 1.98, 0.185, 0.131, 1.033, 0.569, 1.65, 13.213, 0.609, 0.536, 1.719, 2.292, 1.174, 1.139,
  2.826, 1.682, 0.498, 1.293, 1.036, 0.488, 1.815, 0.594, 3.701,
];
const rows: ToolSessionRow[] = COST.map((cost, i) => ({
  tool_name: "t",
  session_id: `s${i}`,
  at: i,
  treated: HELD[i] === 0,
  cost,
}));

describe("the breaker's opening test", () => {
  // The figures are scripts/reference/opening.py's (numpy, the radius written from its formula).
  it("matches an independent computation (numpy) of the guarded one-sided interval", () => {
    const s = openingSequence(rows, 0.3);
    expect([s.treated, s.held_out]).toEqual([42, 18]);
    expect(s.estimate).toBeCloseTo(0.8998385557913288, 12);
    expect(s.sd).toBeCloseTo(4.38164556167021, 12);
    expect(s.interval![0]).toBeCloseTo(-1.0578839759642729, 12);
    expect(s.interval![1]).toBeCloseTo(2.8575610875469306, 12);
    expect(s.verdict).toBe("inconclusive");
  });

  it("floors the held-out arm's spread by both arms pooled, as the independent computation does at holdout 0.5", () => {
    const s = openingSequence(rows, 0.5);
    expect(s.estimate).toBeCloseTo(0.9171793558153419, 12);
    expect(s.sd).toBeCloseTo(4.2116083792056624, 12);
    expect(s.interval![0]).toBeCloseTo(-0.9645704349547494, 12);
    expect(s.interval![1]).toBeCloseTo(2.7989291465854333, 12);
  });

  it("withholds its verdict below 30 sessions in either arm", () => {
    const losing = rows.slice(0, 40).map((r) => ({ ...r, cost: r.treated ? r.cost + 100 : r.cost }));
    const s = openingSequence(losing, 0.3);
    expect(s.held_out).toBeLessThan(30);
    expect(s.withheld).toBe("too_few_sessions");
    expect(s.verdict).toBe("inconclusive");
  });

  it("opens for a null tool with heavily skewed bills at holdout 0.1 in at most 5% of runs, where the old rule opened more often", () => {
    const f = falseOpenings({ holdout: 0.1, sigma: 2, sessions: 1_000, every: 20, runs: 120, seed: 34 });
    expect(f.opening).toBeLessThanOrEqual(0.05);
    expect(f.old).toBeGreaterThan(f.opening);
  }, 60_000);

  it("still opens on the +94.8% world at holdout 0.5, and regression-adjusting for cache misses opens it sooner", () => {
    const r = sessionsToOpen({ holdout: 0.5, sessions: 1_000, every: 20, runs: 8, seed: 34 });
    expect(r.opening.never).toBe(0);
    expect(r.adjusted.median).toBeLessThanOrEqual(r.opening.median);
  }, 60_000);
});

describe("the CUPED adjustment of the sessions' bills", () => {
  const cost = [1.2, 0.8, 2.5, 1.9, 0.4, 3.1, 1.1, 2.2, 0.9, 1.7, 2.8, 0.6];
  const x = [150, 90, null, 200, 40, 310, 120, null, 100, 180, 290, 60];
  const bills: ToolSessionRow[] = cost.map((c, i) => ({
    tool_name: "t",
    session_id: `c${i}`,
    at: i,
    treated: i % 2 === 0,
    cost: c,
  }));

  it("matches an independent computation (numpy's polyfit on the earlier sessions, scripts/reference/cuped.py)", () => {
    const expected = [
      1.2, 0.8, 2.5, 1.3666666666666663, 1.4549450549450547, 1.3821917808219177, 1.484369825206992, 2.2,
      1.4224480915081434, 1.3390554396941257, 1.37281323108916, 1.652378272938705,
    ];
    cupedRows(bills, x).forEach((row, i) => expect(row.cost).toBeCloseTo(expected[i]!, 12));
  });

  it("leaves the bills bit for bit as they are when no session reports a covariate", () => {
    const same = cupedRows(
      bills,
      bills.map(() => null),
    );
    expect(same).toEqual(bills);
    same.forEach((row, i) => expect(row).toBe(bills[i]));
  });

  it("keeps the opening test's false openings at most 5% on a null world with the covariate (bounded runs)", () => {
    const r = sessionsToOpen({ holdout: 0.1, sessions: 1_000, every: 20, runs: 40, seed: 35, null: true });
    // Every opening is false: the treated arm fires nothing either.
    expect(r.runs - r.adjusted.never).toBeLessThanOrEqual(0.05 * r.runs);
  }, 60_000);
});
