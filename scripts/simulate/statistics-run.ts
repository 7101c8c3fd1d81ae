// `npm run simulate:statistics`: the full-size figures docs/ledger.md quotes for
// the clustered intervals' coverage and the confidence sequence's false-alarm
// rate (test/ledger/ledger-statistics.test.ts runs the same code at a small size).
import { clusteredCoverage, falseAlarms } from "./statistics";

const started = Date.now();
for (const sessions of [20, 50, 200]) {
  const c = clusteredCoverage({ runs: 10_000, sessions, seed: 2026 + sessions });
  console.log(
    `coverage, ${sessions} sessions of 2-20 turns, ${c.runs} runs: clustered ${(100 * c.clustered).toFixed(1)}%, per decision ${(100 * c.per_decision).toFixed(1)}%`,
  );
}
const f = falseAlarms({ runs: 2_000, sessions: 1_000, every: 20, seed: 2026 });
console.log(
  `false alarms, null lognormal bills, holdout 0.1, a look every 20 sessions to 1,000, ${f.runs} runs: sequence ${(100 * f.sequence).toFixed(1)}%, Welch ${(100 * f.welch).toFixed(1)}%`,
);
console.log(`${((Date.now() - started) / 1000).toFixed(1)} s`);
