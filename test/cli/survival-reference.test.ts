import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  expectedRemaining,
  HORIZON_LOW_LEVEL,
  remainingQuantile,
  type SessionLength,
  survivalOf,
} from "../../src/gate";

const REFERENCE = resolve(import.meta.dirname, "../../scripts/reference/survival.py");

/** scipy's Kaplan–Meier (scripts/reference/survival.py) on the same sessions. */
function reference(sessions: SessionLength[], minAtRisk: number, indices: number[], level = HORIZON_LOW_LEVEL) {
  const input = JSON.stringify({
    sessions: sessions.map((s) => [s.calls, s.ended]),
    min_at_risk: minAtRisk,
    indices,
    level,
  });
  return JSON.parse(execFileSync("python3", [REFERENCE], { input, encoding: "utf8" })) as {
    at_least: number[];
    horizon: Record<string, number | null>;
    low: Record<string, number | null>;
  };
}

/** A seeded generator (mulberry32): the samples are the same on every run. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("the session-aware horizon against scipy's Kaplan–Meier", () => {
  it("gives the mean length at the first call and the mean residual later, on a sample with no censoring", () => {
    const lengths = [3, 5, 5, 8, 13, 21].map((calls) => ({ calls, ended: true }));
    const curve = survivalOf(lengths, 1);
    expect(expectedRemaining(curve, 0)).toBeCloseTo(55 / 6, 12);
    // Past 5 calls: sessions of 8, 13 and 21 remain; from index 5 on they carry 3, 8 and 16 more.
    expect(expectedRemaining(curve, 5)).toBeCloseTo(27 / 3, 12);
  });

  it.each([
    [1, 40, 0.0],
    [2, 200, 0.3],
    [3, 400, 0.6],
  ])("agrees on the curve and every horizon (seed %i, %i sessions, %f of them still running)", (seed, n, open) => {
    const next = random(seed);
    const sessions: SessionLength[] = Array.from({ length: n }, () => ({
      // A heavy-tailed mix of short scripted runs and long interactive sessions.
      calls: next() < 0.4 ? 1 + Math.floor(next() * 12) : 1 + Math.floor(-60 * Math.log(1 - next())),
      ended: next() >= open,
    }));
    const indices = [0, 1, 2, 5, 10, 30, 80, 200, 1_000];
    const ref = reference(sessions, 5, indices);
    const curve = survivalOf(sessions, 5);
    expect(curve.atLeast.length).toBe(ref.at_least.length);
    ref.at_least.forEach((s, j) => expect(curve.atLeast[j], `S(${j})`).toBeCloseTo(s, 12));
    for (const c of indices) {
      const want = ref.horizon[String(c)];
      const got = expectedRemaining(curve, c);
      if (want === null) expect(got).toBeNull();
      else expect(got! / want, `h(${c})`).toBeCloseTo(1, 10);
      expect(remainingQuantile(curve, c, HORIZON_LOW_LEVEL), `low(${c})`).toBe(ref.low[String(c)]);
    }
  });

  it.each([0.1, 0.25, 0.5, 0.9])("agrees on the remaining calls' %f quantile at every index", (level) => {
    const next = random(7);
    const sessions: SessionLength[] = Array.from({ length: 150 }, () => ({
      calls: next() < 0.5 ? 1 + Math.floor(next() * 8) : 1 + Math.floor(-40 * Math.log(1 - next())),
      ended: next() >= 0.2,
    }));
    const indices = [0, 1, 3, 7, 20, 60, 500];
    const ref = reference(sessions, 5, indices, level);
    const curve = survivalOf(sessions, 5);
    for (const c of indices) expect(remainingQuantile(curve, c, level), `q(${c})`).toBe(ref.low[String(c)]);
  });

  it("puts the lower quartile of 3, 5, 5, 8, 13 and 21 calls at 5, below the mean of 9.17", () => {
    const curve = survivalOf(
      [3, 5, 5, 8, 13, 21].map((calls) => ({ calls, ended: true })),
      1,
    );
    expect(remainingQuantile(curve, 0, 0.25)).toBe(5);
    // Past 5 calls (8, 13, 21 remain: 3, 8, 16 to go), a quarter have at most 3 left.
    expect(remainingQuantile(curve, 5, 0.25)).toBe(3);
  });

  it("asks the parent (null) when too few sessions support any index", () => {
    expect(expectedRemaining(survivalOf([{ calls: 9, ended: true }]), 0)).toBeNull();
    expect(remainingQuantile(survivalOf([{ calls: 9, ended: true }]), 0, 0.25)).toBeNull();
  });
});

describe("the remaining calls' lower quartile by bounded simulation", () => {
  it("leaves about a quarter of fresh sessions ending within it, at each call index, from samples of 300", () => {
    const draw = (next: () => number) =>
      next() < 0.4 ? 1 + Math.floor(next() * 12) : 1 + Math.floor(-30 * Math.log(1 - next()));
    // The truth, from 200,000 sessions of the same mix: P(L − c ≤ k | L > c).
    const truthRng = random(99);
    const population = Array.from({ length: 200_000 }, () => draw(truthRng));
    const within = (c: number, k: number) => {
      const alive = population.filter((l) => l > c);
      return alive.filter((l) => l - c <= k).length / alive.length;
    };
    for (const c of [0, 5, 20]) {
      const shares: number[] = [];
      for (let rep = 0; rep < 40; rep++) {
        const next = random(1_000 + rep);
        const sample = Array.from({ length: 300 }, () => ({ calls: draw(next), ended: true }));
        const low = remainingQuantile(survivalOf(sample), c, HORIZON_LOW_LEVEL)!;
        shares.push(within(c, low));
      }
      const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
      // The smallest k whose share reaches a quarter: at or a little above 0.25 (the lengths are whole calls).
      expect(mean, `c=${c}`).toBeGreaterThan(0.22);
      expect(mean, `c=${c}`).toBeLessThan(0.34);
    }
  });
});
