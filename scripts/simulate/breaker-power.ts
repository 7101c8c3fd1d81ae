/**
 * How many sessions the breaker needs to open on the seed's +94.8% world
 * (demonstration 2's, the simulator's D5), with the gate's verdicts known in
 * advance: every output fires in the treated arm (the seed fires on each of
 * them), none in the held-out one. Bills come from world.ts's own arithmetic,
 * so this measures the test, not the worker: by the opening test
 * (src/learning/refresh/opening.ts), by the old two-sided rule, and by the opening
 * test on CUPED-adjusted bills (src/learning/refresh/opening.ts cupedRows: each bill
 * minus β·(misses − mean), β fitted on earlier sessions only, the cache misses
 * drawn before the gate speaks), at the sequence's default tOpt and at `tOpt`,
 * and on bills adjusted for the history's own cost (the same misses priced,
 * with the turns that read it: `history`).
 * Pure and seeded.
 *
 * @module
 */
import { cupedRows, openingSequence } from "../../src/learning/refresh/opening";
import { packedSequence } from "../../src/ledger";
import type { ToolSessionRow } from "../../src/ledger";
import { seeded } from "../../build/seeded.mjs";
import { bill, drawSession, missedTokens, usd, WORLDS, type Prices, type Verdict } from "./world";

/** The seeded Opus row's prices (pricing.seed.json). */
export const OPUS_PRICES: Prices = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 };

/** The config's stub and recall sizes (DEFAULT_GATE_CONFIG), as the seed's answers carry them. */
const FIRED: Omit<Verdict, "decision_id"> = {
  fire: true,
  stub_tokens: 200,
  recall_input_tokens: 2_000,
  recall_output_tokens: 500,
};

export type PowerRule = "opening" | "old" | "adjusted" | "history" | "tuned";

/**
 * Median and quartiles of the session count at the first look that opens
 * (null runs: never within `sessions`), over `runs` seeded runs.
 *
 * @example
 * sessionsToOpen({ holdout: 0.5, sessions: 2_000, every: 20, runs: 40, seed: 1 }).opening.median // ≈ 600
 */
export function sessionsToOpen(options: {
  holdout: number;
  sessions: number;
  every: number;
  runs: number;
  seed: number;
  /** The sequence's tOpt for the `tuned` rule (adjusted bills); the default's 500 when left out. */
  tOpt?: number;
  /** A null world: the treated arm fires nothing either, so every opening is a false one. */
  null?: boolean;
}) {
  const world = WORLDS.find((w) => w.id === 2)!;
  const found: Record<PowerRule, number[]> = { opening: [], old: [], adjusted: [], history: [], tuned: [] };
  for (let run = 0; run < options.runs; run++) {
    const rng = seeded(options.seed * 7_919 + run);
    const rows: ToolSessionRow[] = [];
    const misses: number[] = [];
    const history: number[] = [];
    for (let i = 0; i < options.sessions; i++) {
      const session = drawSession(world, run * 100_000 + i, options.seed);
      const treated = rng() >= options.holdout;
      const verdicts = session.outputs.map(() => ({
        decision_id: "",
        ...(treated && options.null !== true ? FIRED : { ...FIRED, fire: false, stub_tokens: 0 }),
      }));
      rows.push({
        tool_name: "t",
        session_id: session.id,
        at: i,
        treated,
        cost: usd(OPUS_PRICES, bill(world, session, verdicts).usage),
      });
      // The tokens the session re-wrote on its cache misses: the history, once per missed turn.
      const missed = session.hits.slice(2).filter((hit) => !hit).length;
      misses.push(missedTokens(session));
      // The history's own cost (USD): written on turn 1, then re-written on each missed turn or read on a hit.
      const hitTurns = session.hits.length - 2 - missed;
      history.push(
        (session.context * (OPUS_PRICES.cache_write! * (1 + missed) + OPUS_PRICES.cache_read! * hitTurns)) / 1e6,
      );
    }
    // The worker's own adjustment (src/learning/refresh/opening.ts cupedRows): the same pure function.
    const adjusted = cupedRows(rows, misses);
    const byHistory = cupedRows(rows, history);
    const held = Uint8Array.from(rows, (r) => (r.treated ? 0 : 1));
    const cost = Float64Array.from(rows, (r) => r.cost);
    const first: Record<PowerRule, number | null> = {
      opening: null,
      old: null,
      adjusted: null,
      history: null,
      tuned: null,
    };
    for (let t = options.every; t <= options.sessions; t += options.every) {
      if (first.opening === null && openingSequence(rows.slice(0, t), options.holdout).verdict === "losing")
        first.opening = t;
      if (
        first.old === null &&
        packedSequence(held.subarray(0, t), cost.subarray(0, t), 1 - options.holdout).verdict === "losing"
      )
        first.old = t;
      if (first.adjusted === null && openingSequence(adjusted.slice(0, t), options.holdout).verdict === "losing")
        first.adjusted = t;
      if (first.history === null && openingSequence(byHistory.slice(0, t), options.holdout).verdict === "losing")
        first.history = t;
      if (
        first.tuned === null &&
        openingSequence(adjusted.slice(0, t), options.holdout, undefined, options.tOpt).verdict === "losing"
      )
        first.tuned = t;
    }
    for (const rule of ["opening", "old", "adjusted", "history", "tuned"] as const)
      found[rule].push(first[rule] ?? Infinity);
  }
  const summary = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return { median: at(0.5), q1: at(0.25), q3: at(0.75), never: xs.filter((x) => x === Infinity).length };
  };
  return {
    runs: options.runs,
    opening: summary(found.opening),
    old: summary(found.old),
    adjusted: summary(found.adjusted),
    history: summary(found.history),
    tuned: summary(found.tuned),
  };
}
