/**
 * Agents that report honestly and two that do not (docs/design/learning.md §3.5), as the
 * counts src/learning/refresh/trust.ts judges: one that reports outcomes only for
 * recalled decisions, one that reports turns_after as the turns until the
 * recall. Pure and seeded; every loop is bounded by its arguments. The
 * honest agents lose up to 5% of their outcomes and bills at random, in
 * both arms alike, as a crashed session would.
 *
 * @module
 */
import { trustFlags, type ArmCounts, type ReportingCounts } from "../../src/learning/refresh/trust";
import { TRUST_FLAGS, type TrustFlag } from "../../src/storage/schemas";
import { seeded } from "../../build/seeded.mjs";

export type Agent = "honest" | "only_recalled" | "turns_until_recall";

export interface ToolOptions {
  agent: Agent;
  recall: number;
  holdout: number;
  sessions: number;
  seed: number;
  /** The share of outcomes and of bills an honest agent loses at random. */
  loss?: number;
  /** Counts are handed to `look` after every this many sessions. */
  every?: number;
  look?: (counts: ReportingCounts) => void;
}

const emptyArm = (): ArmCounts => ({ decisions: 0, reported: 0, h_sum: 0, h_sumsq: 0, sessions: 0, billed: 0 });
const copy = (c: ReportingCounts): ReportingCounts => ({
  ...c,
  treated: { ...c.treated },
  held_out: { ...c.held_out },
});

/**
 * One tool's reporting over `sessions` sessions of 6–14 turns, an output on each turn but the last
 * with chance 0.5; every treated output fires (the gate's choice does not matter to the flags).
 *
 * @example
 * simulateTool({ agent: "only_recalled", recall: 0.52, holdout: 0.5, sessions: 200, seed: 1 }).recalled // = fired_reported
 */
export function simulateTool(o: ToolOptions): ReportingCounts {
  const rng = seeded(o.seed);
  const loss = o.agent === "honest" ? (o.loss ?? 0) : 0;
  const c: ReportingCounts = { fired: 0, fired_reported: 0, recalled: 0, treated: emptyArm(), held_out: emptyArm() };
  for (let s = 0; s < o.sessions; s++) {
    const turns = 6 + Math.floor(rng() * 9);
    const treated = rng() >= o.holdout;
    const arm = treated ? c.treated : c.held_out;
    arm.sessions++;
    if (rng() >= loss) arm.billed++;
    for (let t = 1; t < turns; t++) {
      if (rng() >= 0.5) continue;
      arm.decisions++;
      const recalled = treated && rng() < o.recall;
      // The turn the stub is recalled on, after the output's own turn.
      const recallTurn = t + 1 + Math.floor(rng() * (turns - t));
      if (treated) c.fired++;
      const reports = o.agent === "only_recalled" ? recalled : rng() >= loss;
      if (!reports) continue;
      const after = o.agent === "turns_until_recall" && recalled ? recallTurn - t : turns - t;
      arm.reported++;
      arm.h_sum += after;
      arm.h_sumsq += after * after;
      if (treated) {
        c.fired_reported++;
        if (recalled) c.recalled++;
      }
    }
    if (o.look !== undefined && o.every !== undefined && (s + 1) % o.every === 0) o.look(copy(c));
  }
  return c;
}

/**
 * The false-flag rate on honest agents: `runs` × 6 tools (recall 0.1, 0.5, 0.9 × holdout 0.1, 0.5,
 * each losing 0–5% of its reports), each judged at `looks` evenly spaced refreshes; a tool counts
 * once if any look raised any flag.
 *
 * @example
 * falseFlagRate({ runs: 100, sessions: 1_000, looks: 20, seed: 1 }) // { tools: 600, everFlagged: …, byFlag: {…} }
 */
export function falseFlagRate(o: { runs: number; sessions: number; looks: number; seed: number }) {
  const byFlag = Object.fromEntries(TRUST_FLAGS.map((f) => [f, 0])) as Record<TrustFlag, number>;
  let tools = 0;
  let everFlagged = 0;
  const every = Math.max(1, Math.floor(o.sessions / o.looks));
  const pick = seeded(o.seed);
  for (let run = 0; run < o.runs; run++)
    for (const recall of [0.1, 0.5, 0.9])
      for (const holdout of [0.1, 0.5]) {
        tools++;
        const raised = new Set<TrustFlag>();
        simulateTool({
          agent: "honest",
          recall,
          holdout,
          sessions: o.sessions,
          seed: Math.floor(pick() * 2 ** 31),
          loss: 0.05 * pick(),
          every,
          look: (counts) => {
            for (const f of trustFlags(counts)) raised.add(f.flag);
          },
        });
        if (raised.size > 0) everFlagged++;
        for (const f of raised) byFlag[f]++;
      }
  return { tools, everFlagged, byFlag };
}
