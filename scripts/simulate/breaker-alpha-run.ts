// `npm run simulate:breaker`: the false-opening table docs/learning.md quotes
// and the sessions-to-open table (test/learning/learning-opening.test.ts runs the same code small). About two minutes.
import { ALPHA_GRID, falseOpenings } from "./breaker-alpha";
import { sessionsToOpen } from "./breaker-power";

const runs = Number(process.env.RUNS ?? 1_000);
const started = Date.now();
console.log(
  `| holdout | σ | sessions | opening test | CUPED-adjusted | old rule |\n| --- | --- | --- | --- | --- | --- |`,
);
for (const cell of ALPHA_GRID) {
  const f = falseOpenings({
    ...cell,
    every: 20,
    runs,
    seed: 2026 + Math.round(cell.holdout * 100) * 10 + cell.sigma * 2,
  });
  console.log(
    `| ${cell.holdout} | ${cell.sigma} | ${cell.sessions} | ${(100 * f.opening).toFixed(1)}% | ${(100 * f.adjusted).toFixed(1)}% | ${(100 * f.old).toFixed(1)}% |`,
  );
}
console.log(`\n${runs} null runs per cell, a look every 20 sessions; ${((Date.now() - started) / 1000).toFixed(1)} s`);

// Sessions to open on the +94.8% world (D5), by rule: median [quartiles], and runs that never opened
// (POWER_NULL=1: the same world with nothing fired, so every opening is false; POWER_T_OPT: the tuned rule's tOpt).
console.log(`\n| holdout | rule | sessions to open, median [q1, q3] | never opened |\n| --- | --- | --- | --- |`);
for (const holdout of [0.5, 0.1]) {
  const r = sessionsToOpen({
    holdout,
    sessions: holdout === 0.5 ? 1_500 : 3_000,
    every: 20,
    runs: Number(process.env.POWER_RUNS ?? 100),
    seed: 2026,
    tOpt: Number(process.env.POWER_T_OPT ?? 250),
    null: process.env.POWER_NULL === "1",
  });
  for (const rule of ["old", "opening", "adjusted", "history", "tuned"] as const) {
    const s = r[rule];
    console.log(`| ${holdout} | ${rule} | ${s.median} [${s.q1}, ${s.q3}] | ${s.never} of ${r.runs} |`);
  }
}
