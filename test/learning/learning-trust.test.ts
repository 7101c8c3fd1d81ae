import { describe, expect, it } from "vitest";
import {
  TRUST,
  trustFlags,
  twoProportionZ,
  upperBound,
  welchZ,
  type ArmCounts,
} from "../../src/learning/refresh/trust";
import { normalQuantile } from "../../src/ledger";
import { falseFlagRate, simulateTool } from "../../scripts/simulate/trust";

// Reporting that can be trusted (docs/design/learning.md §3.5). The expected numbers are scipy's, from
// scripts/reference/trust.py (run it to reproduce them): an independent computation.

const arm = (over: Partial<ArmCounts> = {}): ArmCounts => ({
  decisions: 100,
  reported: 100,
  h_sum: 400,
  h_sumsq: 2_000,
  sessions: 40,
  billed: 40,
  ...over,
});
const honest = { fired: 100, fired_reported: 100, recalled: 30, treated: arm(), held_out: arm() };

describe("the reporting flags' statistics", () => {
  it("match scipy's exact binomial bound, two-proportion z, Welch statistic and normal quantile", () => {
    expect(upperBound(45, 100, 0.999)).toBeCloseTo(0.6078531727787446, 9);
    expect(upperBound(171, 200, 0.999)).toBeCloseTo(0.9216505571165916, 9);
    expect(upperBound(200, 200, 0.999)).toBe(1);
    expect(twoProportionZ(90, 100, 70, 100)).toBeCloseTo(3.5355339059327386, 12);
    expect(twoProportionZ(480, 500, 52, 60)).toBeCloseTo(3.1344156398775116, 12);
    expect(twoProportionZ(90, 100, 65, 100)).toBeCloseTo(4.233337566673017, 12);
    expect(twoProportionZ(480, 500, 50, 60)).toBeCloseTo(4.117356013884803, 12);
    expect(welchZ({ n: 12, sum: 78, sumsq: 650 }, { n: 14, sum: 105, sumsq: 1015 })).toBeCloseTo(
      -0.6546536707079772,
      12,
    );
    expect(normalQuantile(1 - TRUST.armAlpha / 2)).toBeCloseTo(3.8905918864131204, 6);
  });
});

describe("the reporting flags", () => {
  it("raise nothing for an agent that reports every decision in both arms alike", () => {
    expect(trustFlags(honest)).toEqual([]);
  });

  it("flag outcomes missing for a share of fired decisions far from 1, at the bound's edge exactly", () => {
    // scipy: the 99.9% upper bound of 163/200 is 0.8907 (below 0.9), of 164/200 0.8947, of 166/200 0.9025.
    const at = (k: number) => trustFlags({ ...honest, fired: 200, fired_reported: k, recalled: 30 }).map((f) => f.flag);
    expect(at(164)).toContain("outcomes_missing");
    expect(at(166)).not.toContain("outcomes_missing");
    // No outcome at all: nothing was learned, so nothing to doubt (a tenant with no outcomes answers as before).
    expect(
      trustFlags({
        ...honest,
        fired: 200,
        fired_reported: 0,
        recalled: 0,
        treated: arm({ reported: 0, h_sum: 0, h_sumsq: 0 }),
        held_out: arm({ reported: 0, h_sum: 0, h_sumsq: 0 }),
      }),
    ).toEqual([]);
    // Below the minimum of fired decisions, nothing is judged.
    expect(trustFlags({ ...honest, fired: 49, fired_reported: 10, recalled: 3 })).toEqual([]);
  });

  it("flag a recalled share of 1 from 50 outcomes on, not before", () => {
    expect(trustFlags({ ...honest, fired: 50, fired_reported: 50, recalled: 50 }).map((f) => f.flag)).toEqual([
      "recalled_all",
    ]);
    expect(trustFlags({ ...honest, fired: 49, fired_reported: 49, recalled: 49 })).toEqual([]);
    expect(trustFlags({ ...honest, fired: 60, fired_reported: 60, recalled: 59 })).toEqual([]);
  });

  it("flag reporting rates that differ between the arms: outcomes, bills, and the horizon reported", () => {
    const flags = trustFlags({
      ...honest,
      treated: arm({ reported: 90, h_sum: 180, h_sumsq: 500 }),
      held_out: arm({ reported: 65, h_sum: 260, h_sumsq: 1_300, sessions: 100, billed: 60 }),
    }).map((f) => f.flag);
    expect(flags).toEqual(["arm_outcomes", "arm_bills", "arm_horizon"]);
    // At two-sided α 0.0001 (critical z 3.89): 480/500 against 50/60 (z 4.12) is flagged, against 52/60 (z 3.13) not.
    const outcomesOnly = (k: number) =>
      trustFlags({
        ...honest,
        treated: arm({ decisions: 500, reported: 480, h_sum: 1_920, h_sumsq: 9_600 }),
        held_out: arm({ decisions: 60, reported: k, h_sum: 4 * k, h_sumsq: 20 * k }),
      }).map((f) => f.flag);
    expect(outcomesOnly(50)).toEqual(["arm_outcomes"]);
    expect(outcomesOnly(52)).toEqual([]);
  });

  it("say in each flag what raised it", () => {
    const [flag] = trustFlags({ ...honest, fired: 200, fired_reported: 104, recalled: 60 });
    expect(flag).toEqual({
      flag: "outcomes_missing",
      detail: expect.stringMatching(/^104 of 200 fired decisions have an outcome \(at most 0\.6\d\d at 0\.999\)$/),
    });
  });
});

describe("the flags on simulated agents (bounded runs)", () => {
  it("catch an agent that reports outcomes only for recalled decisions, whose p would read near 1 against 0.52", () => {
    const counts = simulateTool({ agent: "only_recalled", recall: 0.52, holdout: 0.5, sessions: 200, seed: 1 });
    expect(counts.recalled / counts.fired_reported).toBe(1);
    expect(trustFlags(counts).map((f) => f.flag)).toEqual(
      expect.arrayContaining(["outcomes_missing", "recalled_all", "arm_outcomes"]),
    );
  });

  it("catch an agent that reports turns_after as the turns until the recall", () => {
    const counts = simulateTool({ agent: "turns_until_recall", recall: 0.52, holdout: 0.5, sessions: 200, seed: 2 });
    expect(trustFlags(counts).map((f) => f.flag)).toContain("arm_horizon");
  });

  it("rarely flag honest agents over many looks: at most 5% of tools ever flagged", () => {
    const rate = falseFlagRate({ runs: 60, sessions: 400, looks: 10, seed: 3 });
    expect(rate.tools).toBe(60 * 6);
    expect(rate.everFlagged / rate.tools).toBeLessThanOrEqual(0.05);
  });
});
