/**
 * The statistics the savings report needs, from running sums so that shards
 * can be merged by adding. Pure: numbers in, numbers out.
 */

/** Count, sum and sum of squares of a sample: enough for its mean and variance, and mergeable by adding. */
export interface Moments {
  n: number;
  sum: number;
  sumsq: number;
}

/** The empty sample. */
export const NO_MOMENTS: Readonly<Moments> = Object.freeze({ n: 0, sum: 0, sumsq: 0 });

/** A two-sided 95% interval; null ends when the sample is too small to give one. */
export type Interval = [number, number] | null;

/**
 * The two samples as one.
 *
 * @example
 * addMoments({ n: 1, sum: 2, sumsq: 4 }, { n: 1, sum: 3, sumsq: 9 }) // { n: 2, sum: 5, sumsq: 13 }
 */
export function addMoments(a: Moments, b: Moments): Moments {
  return { n: a.n + b.n, sum: a.sum + b.sum, sumsq: a.sumsq + b.sumsq };
}

/** The sample mean, or null for an empty sample. */
export function mean(m: Moments): number | null {
  return m.n > 0 ? m.sum / m.n : null;
}

/**
 * The unbiased sample variance (n − 1), or null below two values. Clamped at
 * 0: summing squares can leave a hair below it for a constant sample.
 *
 * @example
 * variance({ n: 3, sum: 6, sumsq: 14 }) // 1
 */
export function variance(m: Moments): number | null {
  if (m.n < 2) return null;
  return Math.max(0, (m.sumsq - (m.sum * m.sum) / m.n) / (m.n - 1));
}

/**
 * The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (Lentz's method), as in Numerical Recipes §6.4.
 */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast on this side; use the symmetry on the other.
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let step = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + step * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + step / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    step = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + step * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + step / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-14) break;
  }
  return h;
}

// Lanczos approximation (g = 7, n = 9), good to about 15 digits.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0] ?? 0;
  for (let i = 1; i < LANCZOS.length; i++) sum += (LANCZOS[i] ?? 0) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * P(T ≤ t) for Student's t with `df` degrees of freedom (df may be
 * fractional, as Welch's is).
 *
 * @example
 * studentTCdf(2.228, 10) // ≈ 0.975
 */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/**
 * The quantile of Student's t at probability `p` (0.5 < p < 1), by
 * bisection on the distribution function.
 *
 * @example
 * studentTQuantile(0.975, 10) // ≈ 2.228
 * studentTQuantile(0.975, Infinity) // ≈ 1.960
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(df > 0)) return Number.NaN;
  if (!Number.isFinite(df) || df > 1e7) return normalQuantile(p);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The standard normal quantile at `p` (Acklam's rational approximation, refined by one Halley step). */
export function normalQuantile(p: number): number {
  // The only quantile the report uses is 0.975; the general form keeps the t's limit honest.
  const a = [
    -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
    2.506628277459239,
  ];
  const b = [
    -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1,
  ];
  const c = [
    -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const poly = (k: number[], x: number) => k.reduce((acc, coef) => acc * x + coef, 0);
  let x: number;
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    x = poly(c, q) / (poly(d, q) * q + 1);
  } else if (p > 1 - 0.02425) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x = -poly(c, q) / (poly(d, q) * q + 1);
  } else {
    const q = p - 0.5;
    const r = q * q;
    x = (poly(a, r) * q) / (poly(b, r) * r + 1);
  }
  return x;
}

/**
 * The mean of a sample and its 95% t interval.
 *
 * @example
 * meanInterval({ n: 4, sum: 10, sumsq: 30 }) // { n: 4, mean: 2.5, ci95: [0.446..., 4.553...] }
 */
export function meanInterval(m: Moments): { n: number; mean: number | null; ci95: Interval } {
  const mu = mean(m);
  const v = variance(m);
  if (mu === null || v === null) return { n: m.n, mean: mu, ci95: null };
  const half = studentTQuantile(0.975, m.n - 1) * Math.sqrt(v / m.n);
  return { n: m.n, mean: mu, ci95: [mu - half, mu + half] };
}

/**
 * A proportion's 95% Wilson score interval: it stays inside [0, 1] and
 * behaves at 0 and n successes, where the normal one collapses.
 *
 * @example
 * wilsonInterval(80, 100) // ≈ [0.711, 0.867]
 */
export function wilsonInterval(successes: number, n: number): Interval {
  if (n <= 0) return null;
  const z = 1.959963984540054;
  const p = successes / n;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Welch's comparison of two means: a − b, its 95% interval and its degrees of freedom. */
export interface WelchResult {
  difference: number | null;
  ci95: Interval;
  df: number | null;
}

/**
 * Welch's unequal-variance t interval for mean(a) − mean(b). Needs two
 * values on each side; a zero standard error gives a zero-width interval.
 *
 * @example
 * welch({ n: 3, sum: 6, sumsq: 14 }, { n: 3, sum: 3, sumsq: 5 }) // { difference: 1, ci95: [...], df: 4 }
 */
export function welch(a: Moments, b: Moments): WelchResult {
  const ma = mean(a);
  const mb = mean(b);
  const va = variance(a);
  const vb = variance(b);
  if (ma === null || mb === null) return { difference: null, ci95: null, df: null };
  const difference = ma - mb;
  if (va === null || vb === null) return { difference, ci95: null, df: null };
  const sa = va / a.n;
  const sb = vb / b.n;
  const se2 = sa + sb;
  if (se2 === 0) return { difference, ci95: [difference, difference], df: null };
  const df = (se2 * se2) / ((sa * sa) / (a.n - 1) + (sb * sb) / (b.n - 1));
  const half = studentTQuantile(0.975, df) * Math.sqrt(se2);
  return { difference, ci95: [difference - half, difference + half], df };
}

/**
 * What a clustered mean needs beyond its count and sum, mergeable by adding:
 * G clusters (sessions), and over them Σ S_g², Σ n_g·S_g and Σ n_g², where
 * S_g is the cluster's sum and n_g its count.
 */
export interface ClusterSums {
  clusters: number;
  cs2: number;
  ncs: number;
  n2: number;
}

/** No clusters. */
export const NO_CLUSTERS: Readonly<ClusterSums> = Object.freeze({ clusters: 0, cs2: 0, ncs: 0, n2: 0 });

/**
 * The two cluster sums as one.
 *
 * @example
 * addClusters({ clusters: 1, cs2: 4, ncs: 4, n2: 4 }, { clusters: 1, cs2: 1, ncs: 1, n2: 1 }) // { clusters: 2, cs2: 5, ncs: 5, n2: 5 }
 */
export function addClusters(a: ClusterSums, b: ClusterSums): ClusterSums {
  return { clusters: a.clusters + b.clusters, cs2: a.cs2 + b.cs2, ncs: a.ncs + b.ncs, n2: a.n2 + b.n2 };
}

/**
 * The mean μ̂ = Σx ÷ N of N values in G clusters (sessions) and its 95%
 * interval with the clusters as the unit (docs/design/ledger.md §5): variance
 * G ÷ (G − 1) · Σ_g (S_g − n_g·μ̂)² ÷ N², a t quantile at G − 1 degrees of
 * freedom. Decisions of one session share its length and its cache, so
 * they are not independent; with one value per cluster this is the
 * ordinary t interval. Null below two clusters.
 *
 * @example
 * clusteredInterval(2, 6, { clusters: 2, cs2: 20, ncs: 6, n2: 2 }) // one value per cluster: as meanInterval of [2, 4]
 */
export function clusteredInterval(
  n: number,
  sum: number,
  c: ClusterSums,
): { n: number; mean: number | null; ci95: Interval } {
  if (n <= 0) return { n, mean: null, ci95: null };
  const mu = sum / n;
  if (c.clusters < 2) return { n, mean: mu, ci95: null };
  const spread = Math.max(0, c.cs2 - 2 * mu * c.ncs + mu * mu * c.n2);
  const v = ((c.clusters / (c.clusters - 1)) * spread) / (n * n);
  const half = studentTQuantile(0.975, c.clusters - 1) * Math.sqrt(v);
  return { n, mean: mu, ci95: [mu - half, mu + half] };
}
