/**
 * `npx tsx --import ./scripts/validators/workerd-stub.mjs scripts/simulate/trust-run.ts [runs]`:
 * the reporting flags' figures for docs/learning.md § Reporting that can be trusted: the
 * false-flag rate on honest agents over many looks, and how soon each dishonest agent is caught.
 *
 * @module
 */
import { trustFlags } from "../../src/learning/refresh/trust";
import { falseFlagRate, simulateTool, type Agent } from "./trust";

const runs = Math.max(1, Math.min(2_000, Number(process.argv[2] ?? 200)));
for (const sessions of [1_000, 3_000]) {
  const rate = falseFlagRate({ runs, sessions, looks: 50, seed: 2026 });
  console.log(
    `honest, ${sessions} sessions, 50 looks: ${rate.everFlagged} of ${rate.tools} tools ever flagged (${((100 * rate.everFlagged) / rate.tools).toFixed(2)}%) ${JSON.stringify(rate.byFlag)}`,
  );
}
for (const agent of ["only_recalled", "turns_until_recall"] as Agent[])
  for (const holdout of [0.1, 0.5]) {
    const first: number[] = [];
    for (let run = 0; run < runs; run++) {
      let at: number | null = null;
      let seen = 0;
      simulateTool({
        agent,
        recall: 0.52,
        holdout,
        sessions: 1_000,
        seed: 9_000 + run,
        every: 20,
        look: (counts) => {
          seen += 20;
          if (at === null && trustFlags(counts).length > 0) at = seen;
        },
      });
      first.push(at ?? Infinity);
    }
    first.sort((a, b) => a - b);
    const caught = first.filter((x) => x !== Infinity).length;
    console.log(
      `${agent}, holdout ${holdout}, recall 0.52: caught in ${caught} of ${runs} runs within 1,000 sessions; sessions to the first flag, median ${first[Math.floor(runs / 2)]}, 95th percentile ${first[Math.floor(0.95 * runs)]}`,
    );
  }
