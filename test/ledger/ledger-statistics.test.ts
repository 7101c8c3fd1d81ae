import { describe, expect, it } from "vitest";
import { clusteredCoverage, falseAlarms, summarize } from "../../scripts/simulate/statistics";
import { clusteredInterval, meanInterval } from "../../src/ledger";

// The statistics checked like code (docs/ledger.md § How far to trust each figure):
// against an independent computation, and by simulation at a small size; the
// full-size figures come from `npm run simulate:statistics`.

describe("the clustered interval", () => {
  it("matches an independent python3/scipy computation on sessions of unequal length", () => {
    // python3: mu = xs.mean(); var = G/(G-1) * Σ_g (Σ_i (x - mu))² / N²; mu ± scipy.stats.t.ppf(0.975, G-1) * √var
    const { m, c } = summarize([
      [1.0, 2.0, 2.5, 4.0],
      [0.5],
      [3.0, 3.5],
      [2.0, 1.0, 0.0, 5.0, 6.0, 1.5],
      [2.2, 2.8, 3.1],
    ]);
    const { mean, ci95 } = clusteredInterval(m.n, m.sum, c);
    expect(mean).toBeCloseTo(2.5062499999999996, 12);
    expect(ci95![0]).toBeCloseTo(1.990567255715562, 9);
    expect(ci95![1]).toBeCloseTo(3.0219327442844373, 9);
  });

  it("is the ordinary t interval with one value per session", () => {
    const values = [2, 4, 7, 1, 3];
    const { m, c } = summarize(values.map((v) => [v]));
    const ordinary = meanInterval(m).ci95!;
    const clustered = clusteredInterval(m.n, m.sum, c).ci95!;
    expect(clustered[0]).toBeCloseTo(ordinary[0], 12);
    expect(clustered[1]).toBeCloseTo(ordinary[1], 12);
  });

  it("covers the true mean horizon about 95% of the time on sessions of unequal length, where per-decision intervals do not", () => {
    const { clustered, per_decision } = clusteredCoverage({ runs: 400, sessions: 40, seed: 19 });
    expect(clustered).toBeGreaterThan(0.92);
    expect(clustered).toBeLessThan(0.98);
    expect(per_decision).toBeLessThan(0.9);
  });
});

describe("the confidence sequence on null data, read every 20 sessions to 1,000", () => {
  it("shows a verdict in at most about α of the runs, where Welch's fixed-n interval shows one far more often", () => {
    const { sequence, welch } = falseAlarms({ runs: 150, sessions: 1_000, every: 20, seed: 19 });
    expect(sequence).toBeLessThanOrEqual(0.08);
    expect(welch).toBeGreaterThan(0.2);
  });
});
