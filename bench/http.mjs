// HTTP benchmark: the built worker in workerd on 127.0.0.1, loaded by
// autocannon in alternating turns (A B A B) so machine drift cancels out.
import autocannon from "autocannon";
import { bundle } from "../build/bundle.mjs";
import { startWorker } from "../build/workerd.mjs";

// BENCH_PORT_BASE moves every port, so two benchmarks on one machine do not collide.
const PORT = Number(process.env.BENCH_PORT_BASE ?? 8820);
const LIMITER_PORT = PORT + 3;
const LEDGER_PORT = PORT + 4;
const CONNECTIONS = 8;
// The priced models the gate turns cycle through, one request each in turn.
const MODELS = ["claude-opus-4-6", "gpt-5", "gemini-2.5-pro", "claude-sonnet-4-5"];

const gateBody = (model_name, i = 0) =>
  JSON.stringify({ model_name, output_tokens: 20_000 + 1_000 * i, horizon: 4, recall_probability: 0.3 });

/** The same gate bodies, one per model, posted to `path`: the gate and the echo cost the same bytes. */
const gateBodiesTo = (path) =>
  MODELS.map((model, i) => ({
    method: "POST",
    path,
    headers: { "content-type": "application/json" },
    body: gateBody(model, i),
  }));

const ROUTES = {
  healthz: { label: "GET /healthz", requests: [{ method: "GET", path: "/healthz" }] },
  gate: {
    label: "POST /v1/gate",
    requests: gateBodiesTo("/v1/gate"),
  },
  echo: {
    label: "POST /__bench/echo",
    requests: gateBodiesTo("/__bench/echo"),
  },
};

/** One bounded autocannon run; latencies are kept per request, in ms, unrounded. */
function load(base, requests, { seconds, rate, connections = CONNECTIONS }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const instance = autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        requests,
        timeout: 10,
        ...(rate === undefined ? {} : { overallRate: rate }),
      },
      (error, result) => (error ? reject(error) : resolve({ result, latencies })),
    );
    instance.on("response", (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `pairs` turns of each route, alternating, and sums each route's turns. */
async function alternate(base, pairs, options, names = ["healthz", "gate"]) {
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  for (let pair = 0; pair < pairs; pair++) {
    for (const name of names) runs[name].push(await load(base, ROUTES[name].requests, options));
  }
  return Object.fromEntries(
    Object.entries(runs).map(([name, turns]) => [
      name,
      { ...summarize(turns), turns: turns.map((turn) => summarize([turn])) },
    ]),
  );
}

/**
 * The median over the turns of a ratio between two routes' same-numbered
 * turns (turn i of A against turn i of B, measured next to each other).
 *
 * @example
 * medianTurnRatio(fixed.gate, fixed.healthz, "p99_ms") // p99 gate ÷ p99 healthz
 */
export function medianTurnRatio(a, b, field) {
  const ratios = a.turns.map((turn, i) => turn[field] / b.turns[i][field]).sort((x, y) => x - y);
  const mid = Math.floor(ratios.length / 2);
  return round(ratios.length % 2 === 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2);
}

function summarize(turns) {
  const latencies = turns.flatMap((turn) => turn.latencies).sort((a, b) => a - b);
  const requests = turns.reduce((sum, turn) => sum + turn.result.requests.total, 0);
  const seconds = turns.reduce((sum, turn) => sum + turn.result.duration, 0);
  return {
    requests,
    req_per_second: Math.round(requests / seconds),
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    non_2xx: turns.reduce((sum, turn) => sum + turn.result.non2xx, 0),
    errors: turns.reduce((sum, turn) => sum + turn.result.errors + turn.result.timeouts, 0),
  };
}

const round = (value, digits = 3) => Number(value.toFixed(digits));

async function stats(base) {
  return (await fetch(`${base}/__bench/stats`)).json();
}

/** POST /v1/gate/batch with 100 items; a batch that does not answer 100 decisions fails the benchmark. */
async function benchBatch(base, seconds) {
  const body = JSON.stringify({
    items: Array.from({ length: 100 }, (_, i) => JSON.parse(gateBody(MODELS[i % MODELS.length], i))),
  });
  const check = await fetch(`${base}/v1/gate/batch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const answer = await check.json();
  if (check.status !== 200 || answer.decisions?.length !== 100) {
    throw new Error(`POST /v1/gate/batch answered ${check.status} without 100 decisions`);
  }
  const run = await load(
    base,
    [{ method: "POST", path: "/v1/gate/batch", headers: { "content-type": "application/json" }, body }],
    {
      seconds,
      connections: 4,
    },
  );
  const summary = summarize([run]);
  return { ...summary, items_per_request: 100, decisions_per_second: summary.req_per_second * 100 };
}

/**
 * The whole HTTP benchmark. Bounded: warm-up, then `pairs` × 3 turns of
 * `seconds` at saturation (healthz, gate, echo), the same at half of echo's
 * rate, one batch turn, and one more pair each with the simulated rate
 * limiter and with the local ledger: about (6·pairs + 5)·seconds in all.
 */
export async function benchHttp({ seconds = 5, pairs = 2, log = console.log } = {}) {
  const scriptPath = await bundle("bench/worker-entry.ts", "worker");
  const measured = await benchWithoutLimiter(scriptPath, { seconds, pairs, log });
  const limiter = await benchWithSimulatedLimiter(scriptPath, { seconds, log });
  const ledger = await benchWithLocalLedger(scriptPath, { seconds, log });
  return { ...measured, with_simulated_rate_limiter: limiter, with_local_ledger: ledger };
}

/**
 * The gate with the outcomes ledger bound. Locally its Durable Object runs
 * in the same workerd process as the gate, so every decision's SQLite write
 * takes the gate's CPU; in production it runs elsewhere and the gate only
 * sends the call, in waitUntil. Reported apart: one more pair of saturated turns.
 */
async function benchWithLocalLedger(scriptPath, { seconds, log }) {
  const worker = await startWorker({ scriptPath, port: LEDGER_PORT, rateLimits: false, ledger: true });
  try {
    log("  the same worker with the outcomes ledger in the same process: 1 × (healthz, gate)");
    await load(worker.base, ROUTES.gate.requests, { seconds: 1 });
    return await alternate(worker.base, 1, { seconds });
  } finally {
    await worker.stop();
  }
}

/**
 * The gate with the rate-limiting binding as miniflare simulates it: a
 * Durable Object with SQLite, one fetch per `limit()` call. That is the
 * simulator's cost, not the binding's in production, so it is reported
 * apart: one more pair of saturated turns.
 */
async function benchWithSimulatedLimiter(scriptPath, { seconds, log }) {
  const worker = await startWorker({ scriptPath, port: LIMITER_PORT, ledger: false });
  try {
    log("  the same worker with miniflare's simulated rate limiter: 1 × (healthz, gate)");
    await load(worker.base, ROUTES.gate.requests, { seconds: 1 });
    return await alternate(worker.base, 1, { seconds });
  } finally {
    await worker.stop();
  }
}

// The main measurement leaves the rate-limiting binding and the ledger out:
// the gate then skips both (it logs once that each is unbound), and what is
// measured is the gate itself.
async function benchWithoutLimiter(scriptPath, { seconds, pairs, log }) {
  const worker = await startWorker({ scriptPath, port: PORT, rateLimits: false, ledger: false });
  try {
    const { base } = worker;
    log(`  worker up at ${base}; warming up`);
    await load(base, ROUTES.healthz.requests, { seconds: 2 });
    await load(base, ROUTES.gate.requests, { seconds: 2 });
    await load(base, ROUTES.echo.requests, { seconds: 1 });
    const before = await stats(base);
    const started = Date.now();

    log(`  saturation: ${pairs} × (healthz, gate, echo) turns of ${seconds} s, ${CONNECTIONS} connections`);
    const saturated = await alternate(base, pairs, { seconds }, ["healthz", "gate", "echo"]);
    // Half of echo's maximum: the load a bare POST takes at half its capacity.
    const rate = Math.max(1, Math.round(saturated.echo.req_per_second / 2));
    log(`  fixed load: ${rate} req/s (half of echo's maximum), ${pairs} × (healthz, gate, echo) turns`);
    const fixed = await alternate(base, pairs, { seconds, rate }, ["healthz", "gate", "echo"]);
    fixed.offered_req_per_second = rate;
    log("  batch");
    const batch = await benchBatch(base, seconds);

    const after = await stats(base);
    const runSeconds = (Date.now() - started) / 1000;
    const keys = Object.keys(after.kv_reads_by_key);
    const reads = after.kv_reads - before.kv_reads;
    return {
      saturated,
      fixed,
      batch,
      kv: {
        reads_during_run: reads,
        reads_during_warmup: before.kv_reads,
        reads_by_key: after.kv_reads_by_key,
        keys_read: keys.length,
        run_seconds: round(runSeconds, 1),
        ttl_seconds: 60,
        reads_per_key_per_ttl: round(reads / keys.length / (runSeconds / 60), 2),
        gate_requests: saturated.gate.requests + fixed.gate.requests + (batch.requests ?? 0),
        cache: after.cache,
      },
    };
  } finally {
    await worker.stop();
  }
}
