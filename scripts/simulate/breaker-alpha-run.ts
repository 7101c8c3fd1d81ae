// `npm run simulate:breaker`: the false-opening table docs/learning.md quotes
// (test/learning-opening.test.ts runs the same code small). About a minute.
import { ALPHA_GRID, falseOpenings } from "./breaker-alpha";

const runs = Number(process.env.RUNS ?? 1_000);
const started = Date.now();
console.log(`| holdout | σ | sessions | opening test | old rule |\n| --- | --- | --- | --- | --- |`);
for (const cell of ALPHA_GRID) {
  const f = falseOpenings({ ...cell, every: 20, runs, seed: 2026 + Math.round(cell.holdout * 100) * 10 + cell.sigma * 2 });
  console.log(`| ${cell.holdout} | ${cell.sigma} | ${cell.sessions} | ${(100 * f.opening).toFixed(1)}% | ${(100 * f.old).toFixed(1)}% |`);
}
console.log(`\n${runs} null runs per cell, a look every 20 sessions; ${((Date.now() - started) / 1000).toFixed(1)} s`);
