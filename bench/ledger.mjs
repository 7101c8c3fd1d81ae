// `npm run bench:ledger`: what one outcomes-ledger shard takes, measured
// locally (workerd through miniflare, 127.0.0.1 only, in-memory SQLite):
// decisions per second handed over one per call (a single gate request) and
// a hundred per call (a full batch), with outcomes, the bytes a decision
// takes, and how long the savings sums take over what was written; then the
// rollups' run (bench/ledger-rollup.mjs): the report over a million decisions.
import autocannon from "autocannon";
import { availableParallelism, loadavg } from "node:os";
import { bundle } from "../build/bundle.mjs";
import { loadGate } from "./gate-load.mjs";
import { queuedRuns } from "./ledger-queue.mjs";
import { rollupRun } from "./ledger-rollup.mjs";
import { startWorker, workerdVersion } from "../build/workerd.mjs";

const PORT = Number(process.env.BENCH_LEDGER_PORT ?? 8872);
const SECONDS = Math.min(60, Number(process.env.BENCH_LEDGER_SECONDS ?? 10));

const scriptPath = await bundle("bench/ledger-entry.ts", "ledger-worker");
// One shard per tenant, so every gate decision below lands in the same shard.
const worker = await startWorker({ scriptPath, port: PORT, config: { ledger_shards: 1 } });

/** Single-decision gate requests for SECONDS: what one shard takes behind the gate, with the isolate's batching. */
async function throughGate() {
  const result = await loadGate(worker.base, SECONDS);
  // Let the last batches land, then count what the shard holds.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const stored = (await json("/bench/storage?tenant=default")).body;
  return {
    tenant: "default",
    batch: "gate",
    connections: 16,
    calls: result.requests.total,
    errors: result.errors + result.non2xx,
    calls_per_second: Math.round(result.requests.total / SECONDS),
    decisions_per_second: Math.round(stored.decisions / SECONDS),
    stored: stored.decisions,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
  };
}

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

const report = {
  machine: {
    cores: availableParallelism(),
    load_average_at_start: loadavg()
      .map((x) => x.toFixed(2))
      .join(" "),
    workerd: workerdVersion(),
  },
  runs: [],
};
try {
  report.runs.push(await throughGate());
  report.runs.push(await run("single", 1, 16, false));
  report.runs.push(await run("batched", 100, 4, false));
  report.runs.push(await run("outcomes", 100, 4, true));
  for (const tenant of ["batched", "outcomes"]) {
    const storage = (await json(`/bench/storage?tenant=${tenant}`)).body;
    const sums = await json(`/bench/sums?tenant=${tenant}`);
    report[`storage_${tenant}`] = {
      ...storage,
      bytes_per_decision: Math.round(storage.bytes / storage.decisions),
      sums_ms: sums.ms,
    };
  }
} finally {
  await worker.stop();
}
// Queued writes, on a worker of their own with LEDGER_QUEUE bound (bench/ledger-queue.mjs).
report.queued = await queuedRuns({
  port: PORT + 1,
  seconds: SECONDS,
  backlog: Number(process.env.BENCH_LEDGER_BACKLOG ?? 20_000),
});
// Hourly rollups over a million decisions in one shard (bench/ledger-rollup.mjs).
report.rollups = await rollupRun();
console.log(JSON.stringify(report, null, 2));
