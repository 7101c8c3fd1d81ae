// Cold start, as `wrangler deploy` would ship the worker: the script's size
// (`wrangler deploy --dry-run`) and its startup CPU (`wrangler check
// startup`, which profiles the bundle's top-level evaluation in workerd),
// side by side with a hello-world worker in the same run. `node
// bench/startup.mjs` alone, or as part of `npm run bench`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle, ROOT } from "../build/bundle.mjs";
import { startWorker } from "../build/workerd.mjs";

const ENV = "production";
const offline = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function wrangler(args, cwd) {
  const run = spawnSync(process.execPath, [join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"), ...args], {
    cwd,
    env: offline,
    encoding: "utf8",
  });
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${output.slice(-2000)}`);
  return output;
}

/** `Total Upload: 1096.35 KiB / gzip: 200.12 KiB` → both figures. */
function bundleSize(dir) {
  const out = mkdtempSync(join(tmpdir(), "offload-gate-dry-run-"));
  try {
    const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(
      wrangler(["deploy", "--dry-run", "--env", ENV, "--outdir", out], dir),
    );
    if (match === null) throw new Error("wrangler deploy --dry-run printed no size");
    return { kib: Number(match[1]), gzip_kib: Number(match[2]) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Startup CPU in ms: the profile's active time, garbage collection included
 * (what the target names), and its two parts. The profile's first busy
 * sample carries the whole span since sampling began, about 20 ms here
 * whatever the script (a hello-world reads 0 when that sample lands idle and
 * 15–30 ms when it does not): `first_span_ms`. The samples after it, about
 * 1 ms each, are the script's own evaluation: `after_first_ms`.
 */
function startupMs(cwd, args) {
  const dir = mkdtempSync(join(tmpdir(), "offload-gate-startup-"));
  try {
    const profile = join(dir, "startup.cpuprofile");
    const match = /Active: ([\d.]+) ms/.exec(wrangler(["check", "startup", "--outfile", profile, ...args], cwd));
    if (match === null) throw new Error("wrangler check startup printed no active time");
    return { active_ms: Number(match[1]), ...profileSpans(JSON.parse(readFileSync(profile, "utf8"))) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A CPU profile's busy time split into its first busy sample's span and the rest, in ms. */
function profileSpans({ nodes, samples, timeDeltas }) {
  const idle = new Set(nodes.filter((node) => node.callFrame.functionName === "(idle)").map((node) => node.id));
  let first = null;
  let rest = 0;
  samples.forEach((id, i) => {
    if (idle.has(id)) return;
    const delta = (timeDeltas[i] ?? 0) / 1000;
    if (first === null) first = delta;
    else rest += delta;
  });
  return { first_span_ms: round(first ?? 0), after_first_ms: round(rest) };
}

/**
 * The gate's script size and startup CPU (median of `runs`, alternating with
 * a hello-world worker, so machine drift hits both alike).
 *
 * @example
 * const { size, startup } = benchStartup({ runs: 5 });
 */
export function benchStartup({ runs = 5 } = {}) {
  const hello = mkdtempSync(join(tmpdir(), "offload-gate-hello-"));
  writeFileSync(join(hello, "index.js"), 'export default { fetch: () => new Response("ok") };\n');
  writeFileSync(join(hello, "wrangler.toml"), 'name = "hello"\nmain = "index.js"\ncompatibility_date = "2026-11-01"\n');
  try {
    const gate = [];
    const helloWorld = [];
    for (let i = 0; i < runs; i++) {
      gate.push(startupMs(ROOT, ["--env", ENV]));
      helloWorld.push(startupMs(hello, []));
    }
    const of = (list, key) => list.map((run) => run[key]);
    const startup = {
      gate_ms: median(of(gate, "active_ms")),
      hello_world_ms: median(of(helloWorld, "active_ms")),
      gate_runs_ms: of(gate, "active_ms"),
      hello_world_runs_ms: of(helloWorld, "active_ms"),
      // The parts (see startupMs): the first sample's span, then the evaluation sampled after it.
      gate_first_span_ms: round(median(of(gate, "first_span_ms"))),
      gate_after_first_ms: round(median(of(gate, "after_first_ms"))),
      hello_world_first_span_runs_ms: of(helloWorld, "first_span_ms"),
    };
    return { size: bundleSize(ROOT), hello_world_size: bundleSize(hello), startup };
  } finally {
    rmSync(hello, { recursive: true, force: true });
  }
}

/**
 * The first answers of a fresh isolate: from a fresh workerd to the first
 * answer of GET /healthz, that first answer alone and the second, and (on
 * another fresh workerd) the first answer of POST /v1/gate, KV reads
 * included. For the entry that deploys (src/index.ts: the direct path and
 * /healthz built at startup) and, beside it, the app built on the first request
 * (bench/lazy-entry.ts, as the entry was before), alternating, medians of
 * `runs`. Bundled alike (esbuild, as wrangler does), on 127.0.0.1:`port`.
 *
 * @example
 * const { deployed, app_on_first_request } = await benchFirstRequest({ runs: 5, port: 8826 });
 */
export async function benchFirstRequest({ runs = 5, port = Number(process.env.BENCH_PORT_BASE ?? 8820) + 6 } = {}) {
  const entries = {
    deployed: await bundle("src/index.ts", "startup-deployed"),
    app_on_first_request: await bundle("bench/lazy-entry.ts", "startup-lazy"),
  };
  const samples = Object.fromEntries(Object.keys(entries).map((name) => [name, []]));
  const gateInit = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 }),
  };
  for (let i = 0; i < runs; i++) {
    for (const [name, scriptPath] of Object.entries(entries)) {
      const sample = {};
      for (const [first, path, init] of [
        ["healthz", "/healthz", undefined],
        ["gate", "/v1/gate", gateInit],
      ]) {
        const started = performance.now();
        const worker = await startWorker({ scriptPath, port, rateLimits: false, ledger: true });
        try {
          const asked = performance.now();
          const res = await fetch(`${worker.base}${path}`, init);
          if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
          await res.arrayBuffer();
          const answered = performance.now();
          if (first === "healthz") {
            const again = performance.now();
            await (await fetch(`${worker.base}/healthz`)).arrayBuffer();
            Object.assign(sample, {
              cold_ms: answered - started,
              first_ms: answered - asked,
              second_ms: performance.now() - again,
            });
          } else {
            sample.first_gate_ms = answered - asked;
          }
        } finally {
          await worker.stop();
        }
      }
      samples[name].push(sample);
    }
  }
  const summary = (list) => ({
    start_to_first_answer_ms: round(median(list.map((s) => s.cold_ms))),
    first_answer_ms: round(median(list.map((s) => s.first_ms))),
    second_answer_ms: round(median(list.map((s) => s.second_ms))),
    first_gate_answer_ms: round(median(list.map((s) => s.first_gate_ms))),
  });
  return { ...Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summary(list)])), runs };
}

const round = (value) => Number(value.toFixed(1));

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
  console.log(JSON.stringify({ ...benchStartup({ runs }), first_request: await benchFirstRequest({ runs }) }, null, 2));
}
