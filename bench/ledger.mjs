// `npm run bench:ledger`: what one outcomes-ledger shard takes, measured
// locally (workerd through miniflare, 127.0.0.1 only, in-memory SQLite):
// decisions per second handed over one per call (a single gate request) and
// a hundred per call (a full batch), with outcomes, the bytes a decision
// takes, and how long the savings sums take over what was written.
import autocannon from "autocannon";
import { availableParallelism, loadavg } from "node:os";
import { bundle } from "./build.mjs";
import { startWorker, workerdVersion } from "./worker.mjs";

const PORT = Number(process.env.BENCH_LEDGER_PORT ?? 8872);
const SECONDS = Math.min(60, Number(process.env.BENCH_LEDGER_SECONDS ?? 10));

const scriptPath = await bundle("bench/ledger-entry.ts", "ledger-worker");
const worker = await startWorker({ scriptPath, port: PORT });

async function run(tenant, batch, connections, outcomes) {
  const result = await autocannon({
    url: `${worker.base}/bench/record?tenant=${tenant}&batch=${batch}&outcomes=${outcomes ? 1 : 0}`,
    connections,
    duration: SECONDS,
  });
  const calls = result.requests.total;
  return {
    tenant,
    batch,
    connections,
    with_outcomes: outcomes,
    calls,
    errors: result.errors + result.non2xx,
    calls_per_second: Math.round(calls / SECONDS),
    decisions_per_second: Math.round((calls * batch) / SECONDS),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
  };
}

async function json(path) {
  const started = performance.now();
  const res = await fetch(`${worker.base}${path}`);
  const body = await res.json();
  return { body, ms: Math.round(performance.now() - started) };
}

const report = { machine: { cores: availableParallelism(), load_average_at_start: loadavg().map((x) => x.toFixed(2)).join(" "), workerd: workerdVersion() }, runs: [] };
try {
  report.runs.push(await run("single", 1, 16, false));
  report.runs.push(await run("batched", 100, 4, false));
  report.runs.push(await run("outcomes", 100, 4, true));
  for (const tenant of ["batched", "outcomes"]) {
    const storage = (await json(`/bench/storage?tenant=${tenant}`)).body;
    const sums = await json(`/bench/sums?tenant=${tenant}`);
    report[`storage_${tenant}`] = { ...storage, bytes_per_decision: Math.round(storage.bytes / storage.decisions), sums_ms: sums.ms };
  }
} finally {
  await worker.stop();
}
console.log(JSON.stringify(report, null, 2));
