/**
 * The horizon that knows the session (docs/design/economics.md §13): how many
 * calls, this one included, will still carry an output that enters a session
 * at call index c, estimated from the lengths of sessions seen before. A
 * session's length L is its number of model calls; sessions still running
 * are right-censored (their length is at least what they have made so far).
 * The Kaplan–Meier product-limit estimate of S(j) = P(L ≥ j) handles both,
 * and the horizon is the mean residual length
 *
 *   h(c) = E[L − c | L > c] = Σ_{j > c} S(j) ÷ S(c + 1).
 *
 * Past the data (fewer than `minAtRisk` sessions reached c + 1) the residual
 * is held at its value at the last index the data support: a geometric
 * (memoryless) tail, the least-committal extrapolation of a residual mean.
 * Pure: no I/O, no clock.
 */

/** One session's length in calls, and whether it ended (false: still running, censored). */
export interface SessionLength {
  calls: number;
  ended: boolean;
}

/** A Kaplan–Meier curve over session lengths, with each index's residual horizon precomputed. */
export interface SurvivalCurve {
  /** S(j) = P(L ≥ j) for j = 0 … max observed length + 1 (S(0) = S(1) = 1 for sessions of ≥ 1 call). */
  atLeast: Float64Array;
  /** Sessions that reached j calls (ended at j or later, or still running at j or later). */
  atRisk: Int32Array;
  /** h(c) for c = 0 … the last supported index; later indices take the last value. */
  horizon: Float64Array;
  /** Sessions the curve was fitted on. */
  n: number;
}

/** Below this many sessions reaching an index, the residual is held (docs/design/economics.md §13). */
export const MIN_AT_RISK = 5;

/**
 * The product-limit curve of a sample of session lengths, and each call
 * index's horizon.
 *
 * @example
 * survivalOf([{ calls: 2, ended: true }, { calls: 4, ended: true }]).atLeast // [1, 1, 1, 0.5, 0.5, 0]
 */
export function survivalOf(sessions: readonly SessionLength[], minAtRisk: number = MIN_AT_RISK): SurvivalCurve {
  let max = 0;
  for (const s of sessions) max = Math.max(max, Math.max(1, Math.floor(s.calls)));
  const ended = new Int32Array(max + 2);
  const observed = new Int32Array(max + 2);
  for (const s of sessions) {
    const calls = Math.max(1, Math.floor(s.calls));
    observed[calls]!++;
    if (s.ended) ended[calls]!++;
  }
  // at risk at j: sessions whose observed length is ≥ j.
  const atRisk = new Int32Array(max + 2);
  for (let j = max; j >= 0; j--) atRisk[j] = atRisk[j + 1]! + observed[j]!;
  // S(j) = P(L ≥ j) = Π_{t < j} (1 − d_t / n_t): a session that ends at t has L = t, so it is
  // out of L ≥ t + 1.
  const atLeast = new Float64Array(max + 2);
  atLeast[0] = 1;
  for (let j = 1; j <= max + 1; j++) {
    const t = j - 1;
    atLeast[j] = atRisk[t]! > 0 ? atLeast[t]! * (1 - ended[t]! / atRisk[t]!) : atLeast[t]!;
  }
  // h(c) = Σ_{j > c} S(j) ÷ S(c + 1), by a suffix sum; only while c + 1 is supported by enough sessions.
  let last = -1;
  for (let c = 0; c <= max; c++) if (atRisk[c + 1]! >= minAtRisk && atLeast[c + 1]! > 0) last = c;
  const horizon = new Float64Array(Math.max(0, last + 1));
  let tail = 0;
  for (let j = max + 1; j >= 1; j--) {
    tail += atLeast[j]!;
    const c = j - 1;
    if (c <= last) horizon[c] = tail / atLeast[c + 1]!;
  }
  return { atLeast, atRisk, horizon, n: sessions.length };
}

/**
 * The expected number of calls, from call index `callIndex` on (it included),
 * that carry an output entering there; null when the curve has no supported
 * index (fewer than `minAtRisk` sessions in all): ask the parent's.
 *
 * @example
 * expectedRemaining(survivalOf(lengths), 0) // the mean session length
 */
export function expectedRemaining(curve: SurvivalCurve, callIndex: number): number | null {
  const h = curve.horizon;
  if (h.length === 0) return null;
  const c = Math.max(0, Math.floor(callIndex));
  return h[Math.min(c, h.length - 1)]!;
}

/**
 * The level a session-aware horizon's low end sits at: the remaining calls'
 * lower quartile (docs/design/economics.md §13.2). The gate decides on the
 * range from it to the mean through its robust mode (§6), so a stub fires
 * only where it pays even if this session ends sooner than three in four
 * like it would.
 */
export const HORIZON_LOW_LEVEL = 0.25;

/**
 * The `level` quantile of the remaining calls R = L − c of a session that
 * has made `callIndex` calls (R ≥ 1, this call included): the smallest k with
 * P(R ≤ k | L > c) ≥ level, from the same curve and the same hold past the
 * data as `expectedRemaining`; null where that is null.
 *
 * @example
 * remainingQuantile(survivalOf([3, 5, 5, 8, 13, 21].map((calls) => ({ calls, ended: true })), 1), 0, 0.25) // 5
 */
export function remainingQuantile(curve: SurvivalCurve, callIndex: number, level: number): number | null {
  const last = curve.horizon.length - 1;
  if (last < 0) return null;
  const c = Math.min(Math.max(0, Math.floor(callIndex)), last);
  const s = curve.atLeast;
  const base = s[c + 1]!;
  // S beyond the longest session is 0, so the walk ends there at the latest.
  for (let k = 1; c + k + 1 < s.length; k++) if (1 - s[c + k + 1]! / base >= level) return k;
  return s.length - 1 - c;
}
