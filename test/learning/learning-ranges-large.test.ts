import { describe, expect, it } from "vitest";
import { BETA_NORMAL_FROM, betaQuantile, unitRange } from "../../src/learning/ranges";
import reference from "../fixtures/beta-quantiles.json";

// Reference quantiles from scipy (roots of scipy.stats.beta.cdf), computed independently by
// scripts/reference/beta_quantiles.py: means 1e-9 … 1 − 1e-6, concentrations 2 … 1e12.
const rows = reference.rows as { level: number; a: number; b: number; q: number }[];
const sdOf = (a: number, b: number) => Math.sqrt((a * b) / ((a + b) ** 2 * (a + b + 1)));

describe("the Beta quantile behind a learned p's or q's credible range", () => {
  it("is within a hundredth of a standard deviation of scipy's on every row of the grid", () => {
    expect(rows.length).toBe(605);
    const off = rows
      .map((r) => ({ ...r, got: betaQuantile(r.level, r.a, r.b), sd: sdOf(r.a, r.b) }))
      .filter((r) => !(Math.abs(r.got - r.q) <= 0.01 * r.sd));
    expect(off).toEqual([]);
  });

  it("is checked on both sides of the switch to the normal approximation", () => {
    const sides = rows.map((r) => Math.min(r.a, r.b) >= BETA_NORMAL_FROM);
    expect(sides.filter(Boolean).length).toBeGreaterThan(50);
    expect(sides.filter((s) => !s).length).toBeGreaterThan(50);
  });

  it("puts the lower tail below the mean at a billion observations (bisection put it 2.6 sd above)", () => {
    const lower = betaQuantile(0.005, 5e8, 5e8);
    expect(lower).toBeLessThan(0.5);
    expect(lower).toBeCloseTo(0.49995927256274225, 9);
  });
});

describe("a credible range of a learned p or q", () => {
  const concentrations = [2, 22, 1e3, 1e5, 1e7, 1e9, 1e12, 1e15, 1e300, Number.MAX_VALUE];
  const means = [1e-12, 1e-9, 1e-6, 0.02, 0.5, 0.7543290043290043, 0.98, 1 - 1e-9];

  it("always contains its own value, however large its n", () => {
    const missing: string[] = [];
    for (const concentration of concentrations)
      for (const value of means)
        for (const credible of [0.5, 0.9, 0.99]) {
          const [lo, hi] = unitRange({ value, n: concentration, concentration }, credible);
          if (!(lo <= value && value <= hi && lo >= 0 && hi <= 1))
            missing.push(`${value} at ${concentration}, ${credible}: [${lo}, ${hi}]`);
        }
    expect(missing).toEqual([]);
  });

  it("of p = 0.5 at 1e308 pseudo-observations is a point at 0.5, not at 4.3e-19", () => {
    const [lo, hi] = unitRange({ value: 0.5, n: 1e308, concentration: 1e308 }, 0.9);
    expect(lo).toBeCloseTo(0.5, 12);
    expect(hi).toBeCloseTo(0.5, 12);
  });
});
