/**
 * The breaker's opening test on treatment − holdout, one-sided with the
 * held-out arm's spread guarded (docs/design/learning.md §4.7). Pure: a tool's
 * sessions in report order in, a SequenceResult out (`losing` opens a breaker).
 *
 * @module
 */
import {
  MIN_SESSIONS_PER_ARM,
  noInterval,
  type SequenceResult,
  sequenceRadius,
  type ToolSessionRow,
} from "../../ledger";

/** The breaker's level: one-sided, since only a false `losing` opens it. */
export const BREAKER_ALPHA = 0.05;

/**
 * The opening test over one tool's sessions in report order, at π = 1 −
 * holdoutFraction: ψ as docs/design/ledger.md §4 defines it (each cost centred on the
 * mean of the sessions before it), the held-out arm's Σψ² floored by what
 * both arms pooled say it would be under the null,
 * n_held · (π² Σ_treated ψ² + (1 − π)² Σ_held ψ²) ÷ (t · (1 − π)²), and the interval
 * ψ̄ ± s · radius(t, 2α), whose lower end is the one-sided α bound. `losing`
 * when that lower end is above 0 with at least 30 sessions in each arm.
 *
 * @example
 * openingSequence(rowsOf("read_file"), 0.1).verdict // "losing" | "saving" | "inconclusive"
 */
export function openingSequence(
  rows: readonly ToolSessionRow[],
  holdoutFraction: number,
  alpha = BREAKER_ALPHA,
  tOpt?: number,
): SequenceResult {
  const pi = 1 - holdoutFraction;
  const scale = pi * (1 - pi);
  let costSum = 0;
  let psiSum = 0;
  let treatedSq = 0;
  let heldSq = 0;
  let treated = 0;
  rows.forEach((row, i) => {
    const earlierMean = i === 0 ? 0 : costSum / i;
    const psi = scale > 0 ? (((row.treated ? 1 : 0) - pi) * (row.cost - earlierMean)) / scale : 0;
    psiSum += psi;
    costSum += row.cost;
    if (row.treated) {
      treatedSq += psi * psi;
      treated++;
    } else heldSq += psi * psi;
  });
  const t = rows.length;
  const held = t - treated;
  const estimate = t > 0 ? psiSum / t : null;
  if (t < 2 || treated === 0 || scale === 0 || estimate === null) return noInterval(t, treated, estimate);
  // (y − m)² is π²ψ² in the treated arm and (1 − π)²ψ² in the held-out one: pooled on that scale.
  const pooledSq = (pi * pi * treatedSq + (1 - pi) * (1 - pi) * heldSq) / t;
  const guardedHeldSq = Math.max(heldSq, (held * pooledSq) / (1 - pi) ** 2);
  const sd = Math.sqrt(Math.max(0, (treatedSq + guardedHeldSq - (psiSum * psiSum) / t) / (t - 1)));
  const half = sd * sequenceRadius(t, 2 * alpha, tOpt);
  const interval: [number, number] = [estimate - half, estimate + half];
  const base = { sessions: t, treated, held_out: held, estimate, sd, interval };
  if (sd === 0) return { ...base, verdict: "inconclusive", withheld: "zero_spread" };
  if (treated < MIN_SESSIONS_PER_ARM || held < MIN_SESSIONS_PER_ARM)
    return { ...base, verdict: "inconclusive", withheld: "too_few_sessions" };
  return { ...base, verdict: interval[0] > 0 ? "losing" : interval[1] < 0 ? "saving" : "inconclusive", withheld: null };
}

/**
 * CUPED on a tool's sessions in report order (docs/design/learning.md §4.1): each bill minus
 * β̂_{i−1}·(x_i − x̄_{i−1}), x a covariate the treatment cannot change (the
 * tokens the session re-wrote on its cache misses), β̂ and x̄ the least-squares
 * slope and the mean over the sessions before i only, both arms together. Each
 * adjustment is fixed before the session's arm and bill are seen, so ψ stays
 * unbiased and each look of the sequence stays anytime-valid; it only takes
 * out the noise x explains. A session without a covariate (null) is left as
 * it is and not fitted on: with none, the rows come back unchanged, bit for bit.
 *
 * @example
 * cupedRows(rows, misses)[10].cost // rows[10].cost − β̂₉ · (misses[10] − x̄₉)
 */
export function cupedRows(rows: readonly ToolSessionRow[], x: readonly (number | null)[]): ToolSessionRow[] {
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  return rows.map((row, i) => {
    const xi = x[i];
    if (xi === null || xi === undefined) return row;
    const varX = n > 1 ? sxx - (sx * sx) / n : 0;
    const beta = varX > 0 ? (sxy - (sx * sy) / n) / varX : 0;
    const adjusted = n > 0 ? row.cost - beta * (xi - sx / n) : row.cost;
    n++;
    sx += xi;
    sy += row.cost;
    sxx += xi * xi;
    sxy += xi * row.cost;
    return adjusted === row.cost ? row : { ...row, cost: adjusted };
  });
}

/**
 * A tool's sessions with their bills CUPED-adjusted on the covariates they
 * reported (POST /v1/sessions `covariate`): cupedRows on each row's own.
 * With no covariate reported, the very rows given, bit for bit.
 *
 * @example
 * openingSequence(adjustedRows(rows), 0.5) // the breaker's opening test on adjusted bills
 */
export function adjustedRows(rows: readonly ToolSessionRow[]): readonly ToolSessionRow[] {
  if (!rows.some(hasCovariate)) return rows;
  return cupedRows(
    rows,
    rows.map((row) => row.covariate ?? null),
  );
}

/**
 * Whether a session reported a covariate, so the adjustment can use it.
 *
 * @example
 * rows.filter(hasCovariate).length // the bills the adjustment changes (all but the first few)
 */
export const hasCovariate = (row: ToolSessionRow): boolean => row.covariate !== undefined && row.covariate !== null;
