/**
 * Credible ranges for learned priors (docs/design/learning.md §3.3): the central
 * interval of each learned value, for users who would rather miss a saving
 * than risk a loss. Pure.
 */
import { incompleteBeta, normalQuantile } from "../ledger";
import { LEARNED_RANGES } from "./bounds";
import type { PooledField } from "./pool";

/**
 * The `level` quantile of Beta(a, b), by bisection on the regularized
 * incomplete beta (monotone, so bisection cannot miss): 60 halvings take the
 * bracket below 1e-18.
 *
 * @example
 * betaQuantile(0.05, 16.595, 5.405) // 0.594030…
 */
export function betaQuantile(level: number, a: number, b: number): number {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (incompleteBeta(mid, a, b) < level) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
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
  return [betaQuantile(tail, a, b), betaQuantile(1 - tail, a, b)];
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
