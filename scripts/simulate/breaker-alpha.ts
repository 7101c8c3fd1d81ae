/**
 * How often the breaker opens for a tool that does nothing (docs/design/learning.md §4.7):
 * null worlds of lognormal bills, the same in both arms, judged every
 * `every` sessions as the refresh judges them, by the breaker's opening test
 * (src/learning/refresh/opening.ts) and, for contrast, by the two-sided sequence it
 * replaced. Pure and seeded; test/learning/learning-opening.test.ts runs it small,
 * `npm run simulate:breaker` at the size docs/learning.md quotes.
 *
 * @module
 */
import { cupedRows, openingSequence } from "../../src/learning/refresh/opening";
import { packedSequence } from "../../src/ledger";
import type { ToolSessionRow } from "../../src/ledger";
import { seeded } from "../../build/seeded.mjs";

/** A standard normal draw (Box–Muller) from a uniform generator. */
function normal(rng: () => number): number {
  const u = 1 - rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** One cell of the table: a holdout fraction, a bill skew, and how long and how often it is judged. */
export interface NullWorld {
  holdout: number;
  /** σ of log(bill): 0.5 is mild skew, 2 is heavy (the mean is e^{σ²/2} times the median). */
  sigma: number;
  sessions: number;
  every: number;
  runs: number;
  seed: number;
}

/**
 * The share of null runs in which the tool's breaker ever opened: by the
 * opening test, by the old rule (the two-sided sequence's lower end above
 * 0, 30 sessions per arm), and by the opening test on CUPED-adjusted bills
 * (cupedRows, as the worker adjusts them) with a covariate whose log has
 * correlation 0.7 with the bill's, the same in both arms. The covariate's
 * own dice come from a second generator, so the first two columns' draws are
 * those of the table before the adjustment.
 *
 * @example
 * falseOpenings({ holdout: 0.1, sigma: 2, sessions: 1_000, every: 20, runs: 200, seed: 1 }) // { opening: ≈0.00, old: ≈0.1, adjusted: ≈0.00 }
 */
export function falseOpenings(world: NullWorld): { runs: number; opening: number; old: number; adjusted: number } {
  const rng = seeded(world.seed);
  const covariateRng = seeded(world.seed + 1_000_003);
  let opened = 0;
  let oldOpened = 0;
  let adjustedOpened = 0;
  for (let run = 0; run < world.runs; run++) {
    const rows: ToolSessionRow[] = [];
    const x: number[] = [];
    for (let i = 0; i < world.sessions; i++) {
      const treated = rng() >= world.holdout;
      const z = normal(rng);
      rows.push({ tool_name: "t", session_id: `s${i}`, at: i, treated, cost: Math.exp(world.sigma * z) });
      x.push(Math.exp(world.sigma * (0.7 * z + Math.sqrt(1 - 0.49) * normal(covariateRng))));
    }
    const adjusted = cupedRows(rows, x);
    const held = Uint8Array.from(rows, (r) => (r.treated ? 0 : 1));
    const cost = Float64Array.from(rows, (r) => r.cost);
    let seen = false;
    let oldSeen = false;
    let adjustedSeen = false;
    for (let t = world.every; t <= world.sessions && !(seen && oldSeen && adjustedSeen); t += world.every) {
      if (!seen && openingSequence(rows.slice(0, t), world.holdout).verdict === "losing") seen = true;
      if (!oldSeen && packedSequence(held.subarray(0, t), cost.subarray(0, t), 1 - world.holdout).verdict === "losing")
        oldSeen = true;
      if (!adjustedSeen && openingSequence(adjusted.slice(0, t), world.holdout).verdict === "losing")
        adjustedSeen = true;
    }
    if (seen) opened++;
    if (oldSeen) oldOpened++;
    if (adjustedSeen) adjustedOpened++;
  }
  return {
    runs: world.runs,
    opening: opened / world.runs,
    old: oldOpened / world.runs,
    adjusted: adjustedOpened / world.runs,
  };
}

/** The table's grid: holdout 0.05, 0.1 and 0.5 by σ 0.5 to 2; the skewed worlds run twice as long, as the audit's did. */
export const ALPHA_GRID = [0.05, 0.1, 0.5].flatMap((holdout) =>
  [0.5, 1, 1.5, 2].map((sigma) => ({ holdout, sigma, sessions: sigma >= 1.5 ? 2_000 : 1_000 })),
);
