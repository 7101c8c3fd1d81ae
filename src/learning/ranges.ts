/**
 * Credible ranges for learned priors (docs/design/learning.md §3.3): the central
 * interval of each learned value, for users who would rather miss a saving
 * than risk a loss. Pure.
 */
import { incompleteBeta, normalQuantile } from "../ledger";
import type { PooledField } from "./pool";
import { LEARNED_RANGES } from "./pool";

/**
 * Below this many pseudo-observations on either side, the quantile is found
 * by bisection on the regularized incomplete beta; from it, by the normal
 * approximation. The continued fraction behind the incomplete beta needs
 * O(√max(a, b)) terms near the mean and stops at 300, and ln Γ of numbers
 * past 1e8 cancels to a few digits: at Beta(5e8, 5e8) bisection put the
 * 0.005 quantile 2.6 sd off, above the mean. From 1e5 each side the Beta's
 * skewness is below 0.007 and the Cornish–Fisher terms correct what is
 * left: test/learning/learning-ranges-large.test.ts holds both sides within
 * 0.01 sd of scipy (scripts/reference/beta_quantiles.py), n = 2 … 1e12.
 */
export const BETA_NORMAL_FROM = 100_000;

/**
 * The `level` quantile of Beta(a, b): by bisection on the regularized
 * incomplete beta (monotone, so bisection cannot miss; 60 halvings take the
 * bracket below 1e-18) while a and b are below BETA_NORMAL_FROM, by the
 * normal approximation with its Cornish–Fisher skewness and kurtosis terms
 * from there, clipped to [0, 1].
 *
 * @example
 * betaQuantile(0.05, 16.595, 5.405) // 0.594030…
 * betaQuantile(0.005, 5e8, 5e8) // 0.499959…, below the mean as it must be
 */
export function betaQuantile(level: number, a: number, b: number): number {
  if (Math.min(a, b) >= BETA_NORMAL_FROM) return normalBetaQuantile(level, a, b);
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (incompleteBeta(mid, a, b) < level) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The Cornish–Fisher expansion of Beta(a, b)'s quantile to its fourth cumulant (Abramowitz & Stegun 26.2.49). */
function normalBetaQuantile(level: number, a: number, b: number): number {
  // In the mean and the concentration, so that no product overflows even at 1e308 observations.
  const c = a + b;
  const mean = 1 / (1 + b / a);
  // Past Number.MAX_VALUE the Beta is a point at its mean.
  if (!Number.isFinite(c)) return mean;
  const spread = mean * (1 - mean);
  const sd = Math.sqrt(spread / (c + 1));
  const skew = (2 * (1 - 2 * mean) * Math.sqrt(c + 1)) / ((c + 2) * Math.sqrt(spread));
  const kurtosis = (6 * (((1 - 2 * mean) ** 2 / spread) * ((c + 1) / (c + 2)) - 1)) / (c + 3);
  const z = normalQuantile(level);
  const w =
    z + ((z * z - 1) * skew) / 6 + ((z ** 3 - 3 * z) * kurtosis) / 24 - ((2 * z ** 3 - 5 * z) * skew * skew) / 36;
  return Math.min(1, Math.max(0, mean + sd * w));
}

/**
 * The central `credible` interval of a learned p or q: Beta(m·(w+n),
 * (1−m)·(w+n)) at the most specific level with observations. A mean of
 * exactly 0 or 1 is its own range (the Beta degenerates there).
 *
 * @example
 * unitRange({ value: 0.7543290043290043, n: 12, concentration: 22, sd: null }, 0.9) // [0.594030…, 0.887834…]
 */
export function unitRange(
  field: Pick<PooledField, "value" | "n" | "concentration">,
  credible: number,
): [number, number] {
  const m = field.value;
  if (m <= 0 || m >= 1) return [m, m];
  const a = m * field.concentration;
  const b = (1 - m) * field.concentration;
  const tail = (1 - credible) / 2;
  // A Beta with a or b near 0 piles its mass at one end, and its central interval can leave its own mean out
  // (Beta(2e-9, 2)'s 0.995 quantile is below 1e-9): the range is widened to the value, never left without it.
  return [Math.min(m, betaQuantile(tail, a, b)), Math.max(m, betaQuantile(1 - tail, a, b))];
}

/**
 * The central `credible` interval of a learned horizon: m ± z·s ÷ √(w+n),
 * clipped to the horizons a request may send; null without a standard deviation (n < 2).
 *
 * @example
 * horizonRange({ value: 6.711484593837535, n: 60, concentration: 70, sd: 3 }, 0.9) // [6.121692…, 7.301277…]
 */
export function horizonRange(
  field: Pick<PooledField, "value" | "n" | "concentration" | "sd">,
  credible: number,
): [number, number] | null {
  if (field.sd === null) return null;
  const half = (normalQuantile(1 - (1 - credible) / 2) * field.sd) / Math.sqrt(field.concentration);
  const [lo, hi] = LEARNED_RANGES.horizon;
  return [Math.max(lo, field.value - half), Math.min(hi, field.value + half)];
}
