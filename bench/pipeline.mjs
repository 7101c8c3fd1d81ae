// The in-process cost per request of POST /v1/gate, POST /__bench/echo and
// GET /healthz, served one after another inside one isolate (GET
// /__bench/loop, bench/worker-entry.ts) and timed from outside, in
// alternating rounds; and the parts of any JSON POST on their own (serialise
// a gate answer, build a Response, parse the body, check the gate's schema).
// No sockets, so far less noise than load over HTTP: what tells one build
// from another while the hot path is cut. `node bench/pipeline.mjs [N]
// [ROUNDS]` alone, or as part of `npm run bench`; the HTTP figures are the
// ones the targets name.
import { bundle } from "../build/bundle.mjs";
import { startWorker } from "../build/workerd.mjs";

const ROUTES = ["gate", "echo", "healthz"];
const PARTS = ["stringify", "serialise", "response", "parse", "zod", "compiled"];
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value) => Number(value.toFixed(2));

/**
 * µs per request in process (median over `rounds` alternating rounds of `n`),
 * gate − echo per round, and each part's µs per call.
 *
 * @example
 * const { per_request_us, gate_minus_echo_us } = await benchPipeline({ n: 2000, rounds: 7 });
 */
export async function benchPipeline({
  n = 2000,
  rounds = 7,
  port = Number(process.env.BENCH_PORT_BASE ?? 8820) + 7,
} = {}) {
  const scriptPath = await bundle("bench/worker-entry.ts", "pipeline");
  const worker = await startWorker({ scriptPath, port, rateLimits: false, ledger: false });
  const timed = async (route, count) => {
    const started = process.hrtime.bigint();
    const response = await fetch(`${worker.base}/__bench/loop?route=${route}&n=${count}`);
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    await response.json();
    return Number(process.hrtime.bigint() - started) / 1000 / count;
  };
  try {
    const names = [...ROUTES, ...PARTS];
    for (const name of names) await timed(name, n); // warm up: JIT, the pricing cache
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    for (let i = 0; i < rounds; i++)
      for (const name of names) samples[name].push(await timed(name, PARTS.includes(name) ? n * 10 : n));
    return {
      n,
      rounds,
      per_request_us: Object.fromEntries(ROUTES.map((route) => [route, round(median(samples[route]))])),
      gate_minus_echo_us: round(median(samples.gate.map((gate, i) => gate - samples.echo[i]))),
      parts_us: Object.fromEntries(PARTS.map((part) => [part, round(median(samples[part]))])),
    };
  } finally {
    await worker.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchPipeline({
    n: Number(process.argv[2] ?? 2000),
    rounds: Math.min(50, Number(process.argv[3] ?? 7)),
  });
  console.log(JSON.stringify(result, null, 2));
}
