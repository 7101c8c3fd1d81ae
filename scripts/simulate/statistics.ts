/**
 * Monte Carlo checks of the ledger's statistics (docs/design/ledger.md §4, §5): how
 * often the clustered 95% intervals cover the truth on sessions of unequal
 * length, and how often the confidence sequence ever shows a verdict on null
 * data read again and again. Pure and seeded; test/ledger/ledger-statistics.test.ts
 * runs them small, `npm run simulate:statistics` at the size docs/ledger.md quotes.
 */
import {
  clusteredInterval,
  type ClusterSums,
  confidenceSequence,
  meanInterval,
  type Moments,
  type SequenceSession,
  welch,
} from "../../src/ledger";
import { seeded } from "../../build/seeded.mjs";

/** A standard normal draw (Box–Muller) from a uniform generator. */
function normal(rng: () => number): number {
  const u = 1 - rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** The cluster sums and moments of values grouped by session. */
export function summarize(sessions: readonly number[][]): { m: Moments; c: ClusterSums } {
  const m = { n: 0, sum: 0, sumsq: 0 };
  const c = { clusters: 0, cs2: 0, ncs: 0, n2: 0 };
  for (const values of sessions) {
    if (values.length === 0) continue;
    const s = values.reduce((a, b) => a + b, 0);
    m.n += values.length;
    m.sum += s;
    for (const v of values) m.sumsq += v * v;
    c.clusters++;
    c.cs2 += s * s;
    c.ncs += values.length * s;
    c.n2 += values.length * values.length;
  }
  return { m, c };
}

/**
 * One world of sessions of unequal length (2 to `maxTurns` turns), a decision
 * on each turn before the last with probability ½, and its value the realized
 * horizon (turns left): decisions of one session share its length, so they are
 * correlated, as in the ledger. Returns each session's values.
 */
export function horizonSessions(rng: () => number, sessions: number, maxTurns = 20): number[][] {
  return Array.from({ length: sessions }, () => {
    const turns = 2 + Math.floor(rng() * (maxTurns - 1));
    const values: number[] = [];
    for (let t = 1; t < turns; t++) if (rng() < 0.5) values.push(turns - t);
    return values;
  });
}

/** The true mean horizon per decision of horizonSessions: Σ_L Σ_t (L − t) ÷ Σ_L (L − 1). */
export function trueMeanHorizon(maxTurns = 20): number {
  let num = 0;
  let den = 0;
  for (let turns = 2; turns <= maxTurns; turns++) {
    num += (turns * (turns - 1)) / 2;
    den += turns - 1;
  }
  return num / den;
}

/**
 * How often the clustered interval, and the per-decision one for contrast,
 * covers the true mean horizon over `runs` worlds of `sessions` sessions.
 *
 * @example
 * clusteredCoverage({ runs: 400, sessions: 40, seed: 1 }) // { clustered: ≈0.95, per_decision: ≈0.7 }
 */
export function clusteredCoverage(options: { runs: number; sessions: number; seed: number }) {
  const rng = seeded(options.seed);
  const truth = trueMeanHorizon();
  let clustered = 0;
  let perDecision = 0;
  for (let run = 0; run < options.runs; run++) {
    const { m, c } = summarize(horizonSessions(rng, options.sessions));
    const ci = clusteredInterval(m.n, m.sum, c).ci95;
    const naive = meanInterval(m).ci95;
    if (ci !== null && ci[0] <= truth && truth <= ci[1]) clustered++;
    if (naive !== null && naive[0] <= truth && truth <= naive[1]) perDecision++;
  }
  return { runs: options.runs, clustered: clustered / options.runs, per_decision: perDecision / options.runs };
}

/**
 * On null data (lognormal bills, the same in both arms; holdout 0.1), how
 * often a verdict is ever shown when the report is read every `every`
 * sessions up to `sessions`: by the confidence sequence, and by Welch's
 * fixed-n interval (the old verdict) for contrast.
 *
 * @example
 * falseAlarms({ runs: 300, sessions: 1_000, every: 20, seed: 1 }) // { sequence: ≈0.03, welch: ≈0.3 }
 */
export function falseAlarms(options: {
  runs: number;
  sessions: number;
  every: number;
  seed: number;
  holdout?: number;
}) {
  const rng = seeded(options.seed);
  const holdout = options.holdout ?? 0.1;
  let sequence = 0;
  let welchAlarms = 0;
  for (let run = 0; run < options.runs; run++) {
    const sessions: SequenceSession[] = [];
    const arms: [Moments, Moments] = [
      { n: 0, sum: 0, sumsq: 0 },
      { n: 0, sum: 0, sumsq: 0 },
    ];
    let seqSeen = false;
    let welchSeen = false;
    for (let i = 1; i <= options.sessions; i++) {
      const treated = rng() >= holdout;
      const cost = Math.exp(normal(rng));
      sessions.push({ treated, cost });
      const arm = arms[treated ? 0 : 1];
      arm.n++;
      arm.sum += cost;
      arm.sumsq += cost * cost;
      if (i % options.every !== 0) continue;
      if (!seqSeen && confidenceSequence(sessions, 1 - holdout).verdict !== "inconclusive") seqSeen = true;
      const w = welch(arms[0], arms[1]).ci95;
      if (!welchSeen && w !== null && (w[0] > 0 || w[1] < 0)) welchSeen = true;
    }
    if (seqSeen) sequence++;
    if (welchSeen) welchAlarms++;
  }
  return { runs: options.runs, sequence: sequence / options.runs, welch: welchAlarms / options.runs };
}
