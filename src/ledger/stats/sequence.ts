/**
 * The anytime-valid verdict of docs/design/ledger.md §4: an asymptotic confidence
 * sequence (Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, 2023) over a
 * tool's sessions in the order they were reported. Its intervals hold at
 * every moment at once, so the report may be read, and the breaker may
 * check, as often as they like without inflating the false-alarm rate.
 * Pure: numbers in, numbers out.
 */
import type { Verdict } from "./report";

/** One session in the sequence: whether the tool was treated in it, and its priced cost. */
export interface SequenceSession {
  treated: boolean;
  cost: number;
}

/** The level of every verdict (two-sided). */
export const SEQUENCE_ALPHA = 0.05;
/** The number of sessions at which the sequence is tightest. */
export const SEQUENCE_T_OPT = 500;
/** Fewer sessions than this in either arm: no verdict, whatever the interval says. */
export const MIN_SESSIONS_PER_ARM = 30;

/** What the sequence says after its last session. */
export interface SequenceResult {
  /** Sessions seen, and in each arm. */
  sessions: number;
  treated: number;
  held_out: number;
  /** ψ̄: the estimate of treatment − holdout per session; null before the first session. */
  estimate: number | null;
  /** The sample standard deviation of ψ (divisor t − 1); null below two sessions. */
  sd: number | null;
  /** The confidence sequence's interval at this moment; null below two sessions. */
  interval: [number, number] | null;
  verdict: Verdict;
  /** Why the verdict is `inconclusive` although an interval exists, or null. */
  withheld: "too_few_sessions" | "zero_spread" | null;
}

/**
 * The half-width multiplier of the asymptotic confidence sequence at t
 * observations: s · multiplier is the half-width.
 *
 * @example
 * sequenceRadius(10) // 5.98… : the interval is ψ̄ ± s · 5.98…
 */
export function sequenceRadius(t: number, alpha = SEQUENCE_ALPHA, tOpt = SEQUENCE_T_OPT): number {
  const l = -2 * Math.log(alpha);
  const r = (l + Math.log(l + 1)) / tOpt;
  const tr = t * r;
  return Math.sqrt(((2 * (tr + 1)) / (t * t * r)) * Math.log(Math.sqrt(tr + 1) / alpha));
}

/**
 * The verdict on treatment − holdout from a tool's sessions, in report
 * order. `treatedProbability` is π = 1 − holdout_fraction, the known chance
 * that a (session, tool) is treated. Each ψ_i centres the cost on the mean
 * of the sessions *before* i, which keeps ψ unbiased and the sequence valid.
 *
 * @example
 * const s = confidenceSequence(S1_SESSIONS, 0.8); // docs/design/ledger.md §4.6, worked example S1
 * s.estimate // -1.2281746031746035
 * s.interval // [-8.53631541400522, 6.079966207656012]
 * s.verdict  // "inconclusive" (fewer than 30 sessions per arm)
 */
export function confidenceSequence(
  sessions: readonly SequenceSession[],
  treatedProbability: number,
  alpha = SEQUENCE_ALPHA,
): SequenceResult {
  return packedSequence(
    Uint8Array.from(sessions, (s) => (s.treated ? 0 : 1)),
    Float64Array.from(sessions, (s) => s.cost),
    treatedProbability,
    alpha,
  );
}

/**
 * confidenceSequence over sessions packed as two arrays in report order:
 * each one's arm (1 held out, 0 treated) and cost. The same arithmetic in
 * the same order, so the same result to the bit.
 *
 * @example
 * packedSequence(Uint8Array.of(0, 1, 0), Float64Array.of(5, 6, 4.5), 0.8).estimate
 */
export function packedSequence(
  held: ArrayLike<number>,
  cost: ArrayLike<number>,
  treatedProbability: number,
  alpha = SEQUENCE_ALPHA,
): SequenceResult {
  const pi = treatedProbability;
  const scale = pi * (1 - pi);
  let costSum = 0;
  let psiSum = 0;
  let psiSumSq = 0;
  let treated = 0;
  for (let i = 0; i < held.length; i++) {
    const a = held[i] === 0;
    const y = cost[i] as number;
    const earlierMean = i === 0 ? 0 : costSum / i;
    const psi = scale > 0 ? (((a ? 1 : 0) - pi) * (y - earlierMean)) / scale : 0;
    psiSum += psi;
    psiSumSq += psi * psi;
    costSum += y;
    if (a) treated++;
  }
  return closeSequence(held.length, treated, psiSum, psiSumSq, alpha);
}

/**
 * The verdict from ψ values given directly (the breaker's rule without a
 * holdout: one ψ per session, its summed realized net). The verdict is
 * `losing` when the upper end is below 0 (the realized net is negative), so
 * the sign is the opposite of a cost difference's: pass costs, not savings,
 * to share one rule. Every ψ here counts as "treated" for the arm minimum.
 *
 * @example
 * meanSequence([-0.2, -0.1, -0.3]).interval // ψ̄ ± s · sequenceRadius(3)
 */
export function meanSequence(
  values: readonly number[],
  alpha = SEQUENCE_ALPHA,
  minSessions = MIN_SESSIONS_PER_ARM,
): SequenceResult {
  let sum = 0;
  let sumsq = 0;
  for (const v of values) {
    sum += v;
    sumsq += v * v;
  }
  const t = values.length;
  const base = closeSequence(t, t, sum, sumsq, alpha);
  // Only one arm exists here: the minimum applies to it alone.
  if (base.interval === null || base.sd === 0) return base;
  if (t < minSessions) return { ...base, verdict: "inconclusive", withheld: "too_few_sessions" };
  return { ...base, verdict: verdictOfInterval(base.interval), withheld: null };
}

/**
 * What a sequence answers before it has an interval: the counts, the estimate
 * if any, and `too_few_sessions` once there is a session.
 *
 * @example
 * noInterval(1, 1, 0.2).withheld // "too_few_sessions"
 */
export function noInterval(sessions: number, treated: number, estimate: number | null): SequenceResult {
  return {
    sessions,
    treated,
    held_out: sessions - treated,
    estimate,
    sd: null,
    interval: null,
    verdict: "inconclusive",
    withheld: sessions > 0 ? "too_few_sessions" : null,
  };
}

function closeSequence(t: number, treated: number, psiSum: number, psiSumSq: number, alpha: number): SequenceResult {
  const held = t - treated;
  const estimate = t > 0 ? psiSum / t : null;
  if (t < 2 || estimate === null) return noInterval(t, treated, estimate);
  const sd = Math.sqrt(Math.max(0, (psiSumSq - (psiSum * psiSum) / t) / (t - 1)));
  const half = sd * sequenceRadius(t, alpha);
  const interval: [number, number] = [estimate - half, estimate + half];
  const base = { sessions: t, treated, held_out: held, estimate, sd, interval };
  if (sd === 0) return { ...base, verdict: "inconclusive", withheld: "zero_spread" };
  if (treated < MIN_SESSIONS_PER_ARM || held < MIN_SESSIONS_PER_ARM)
    return { ...base, verdict: "inconclusive", withheld: "too_few_sessions" };
  return { ...base, verdict: verdictOfInterval(interval), withheld: null };
}

/** `losing` when the interval is above 0 (treatment costs more), `saving` when below, else `inconclusive`. */
function verdictOfInterval([lo, hi]: [number, number]): Verdict {
  if (lo > 0) return "losing";
  if (hi < 0) return "saving";
  return "inconclusive";
}
