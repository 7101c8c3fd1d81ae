// Replay benchmark: one synthetic 1,000-call Claude Code session (the test
// suite's generator, medium outputs of 800–6,000 characters) parsed and
// replayed under every policy at its defaults, on one core. CPU time from
// process.cpuUsage, median of RUNS after a warm-up; the target is under a
// second for all the policies together.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bundle, ROOT } from "../build/bundle.mjs";

const CALLS = 1_000;
const RUNS = 5;

const cpuMs = (f) => {
  const start = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1_000, value };
};
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

export async function benchReplay() {
  const replay = await import(await bundle("bench/replay-entry.ts", "replay"));
  const seed = JSON.parse(readFileSync(join(ROOT, "pricing.seed.json"), "utf8"));
  const prices = replay.priceBook(seed.models);
  const text = replay.claudeCodeSession({ turns: CALLS, outputChars: (k) => 800 + ((k * 2_654_435_761) % 5_200) });
  const parse = [];
  const all = [];
  const perPolicy = {};
  let calls = 0;
  for (let run = 0; run <= RUNS; run++) {
    const parsed = cpuMs(() => replay.parseTranscript(text, "bench.jsonl"));
    const trace = parsed.value.trace;
    calls = trace.calls.length;
    const replayed = cpuMs(() => replay.replayTrace(trace, prices));
    if (run === 0) continue;
    parse.push(parsed.ms);
    all.push(replayed.ms);
    for (const policy of replay.defaultPolicies()) {
      if (policy.name === "keep_everything") continue;
      const one = cpuMs(() => replay.replayTrace(trace, prices, [replay.keepEverything(), policy]));
      (perPolicy[policy.name] ??= []).push(one.ms);
    }
  }
  return {
    calls,
    bytes: text.length,
    parse_ms: Number(median(parse).toFixed(1)),
    replay_all_policies_ms: Number(median(all).toFixed(1)),
    // Each with keep-everything beside it (the fit, the recalls and the baseline are paid every time).
    with_keep_everything_ms: Object.fromEntries(
      Object.entries(perPolicy).map(([name, list]) => [name, Number(median(list).toFixed(1))]),
    ),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchReplay(), null, 2));
