// `npm run bench`: the core benchmark, then the HTTP benchmark, one table at
// the end, and the same figures as JSON in bench/results.json (git-ignored).
import { execSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { ROOT } from "../build/bundle.mjs";
import { benchCore } from "./core.mjs";
import { benchHttp, medianTurnRatio } from "./http.mjs";
import { benchPipeline } from "./pipeline.mjs";
import { benchPlan } from "./plan.mjs";
import { benchReplay } from "./replay.mjs";
import { benchSync } from "./sync.mjs";
import { benchFirstRequest, benchStartup } from "./startup.mjs";
import { workerdVersion } from "../build/workerd.mjs";

const TARGETS = {
  core_per_second: 2_000_000,
  throughput_ratio: 0.9,
  p99_ratio: 1.5,
  script_gzip_kib: 250,
  startup_ms: 25,
  first_answer_ms: 15,
};

function machine() {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
  let load = "";
  try {
    load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    // Not Linux.
  }
  return {
    cores: availableParallelism(),
    cpu,
    node: process.version,
    workerd: workerdVersion(),
    load_average_at_start: load,
  };
}

const ROUTE_LABELS = { healthz: "GET /healthz", gate: "POST /v1/gate", echo: "POST /__bench/echo" };
const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));
const ratio = (a, b) => Number((a / b).toFixed(3));
const verdict = (ok) => (ok ? "met" : "MISSED");

function table(rows) {
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => String(row[col]).length)));
  return rows.map((row) => row.map((cell, col) => String(cell).padEnd(widths[col])).join("  ")).join("\n");
}

const seconds = Number(process.env.BENCH_TURN_SECONDS ?? 5);
const pairs = Number(process.env.BENCH_PAIRS ?? 3);
const about = machine();
console.log(`offload-gate bench on ${about.cores} cores (${about.cpu}), Node ${about.node}, workerd ${about.workerd}`);
console.log("core: 100,000 varied inputs with reason strings (tinybench)");
const core = await benchCore();
console.log("plan: decidePlan at the limits (512 segments, 64 candidates) beside one gate decision (tinybench)");
const plan = await benchPlan();
console.log("replay: a 1,000-call session parsed and replayed under every policy, one core (CPU time, median of 5)");
const replay = await benchReplay();
console.log(
  "sync: parseSource + diffSource on same-price snapshots of one model, N and 2N up to the 8 MiB limit (CPU)",
);
const sync = await benchSync();
console.log("http: workerd via miniflare on 127.0.0.1, autocannon");
const http = await benchHttp({ seconds, pairs });
console.log("in process: the same routes served one after another inside one isolate, no sockets (GET /__bench/loop)");
const inProcess = await benchPipeline();
console.log(
  "cold start: wrangler deploy --dry-run and wrangler check startup (median of 5, with a hello-world worker)",
);
const coldStart = { ...benchStartup({ runs: 5 }), first_request: await benchFirstRequest({ runs: 5 }) };

const { saturated, fixed, batch, kv } = http;
const results = {
  taken_at: new Date().toISOString(),
  commit: execSync("git rev-parse --short HEAD", { cwd: ROOT }).toString().trim(),
  machine: { ...about, load_average_at_end: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ") },
  core,
  plan,
  replay,
  sync,
  http,
  in_process: inProcess,
  cold_start: coldStart,
  // The targets' ratios are medians over the turns, each turn against the
  // other route's turn next to it; the pooled ones are kept for reference.
  ratios: {
    // The targets: the gate against echo (a POST that reads the same body and answers 680 bytes of JSON).
    throughput_gate_over_echo: medianTurnRatio(saturated.gate, saturated.echo, "req_per_second"),
    p99_gate_over_echo_at_fixed_load: medianTurnRatio(fixed.gate, fixed.echo, "p99_ms"),
    // healthz, the second reference.
    throughput_gate_over_healthz: medianTurnRatio(saturated.gate, saturated.healthz, "req_per_second"),
    p99_gate_over_healthz_at_fixed_load: medianTurnRatio(fixed.gate, fixed.healthz, "p99_ms"),
    pooled_throughput_gate_over_echo: ratio(saturated.gate.req_per_second, saturated.echo.req_per_second),
    pooled_p99_gate_over_echo_at_fixed_load: ratio(fixed.gate.p99_ms, fixed.echo.p99_ms),
    throughput_gate_over_healthz_with_simulated_limiter: ratio(
      http.with_simulated_rate_limiter.gate.req_per_second,
      http.with_simulated_rate_limiter.healthz.req_per_second,
    ),
    throughput_gate_over_healthz_with_local_ledger: ratio(
      http.with_local_ledger.gate.req_per_second,
      http.with_local_ledger.healthz.req_per_second,
    ),
  },
  targets: TARGETS,
};
writeFileSync(join(ROOT, "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);

const errors = [saturated, fixed, http.with_simulated_rate_limiter, http.with_local_ledger]
  .flatMap((run) => Object.values(run).filter((r) => typeof r === "object"))
  .concat([batch])
  .reduce((sum, r) => sum + r.non_2xx + r.errors, 0);
const rows = [
  ["measure", "value", "target", "verdict"],
  ["core evaluateOffloadGate, 1 thread", `${fmt(core.evaluate_per_second_1_thread)}/s`, "", ""],
  ["core decideGate (route's call), 1 thread", `${fmt(core.decide_per_second_1_thread)}/s`, "", ""],
  [
    `core evaluateOffloadGate, ${core.threads} threads`,
    `${fmt(core.evaluate_per_second_all_cores)}/s`,
    `≥ ${fmt(TARGETS.core_per_second)}/s`,
    verdict(core.evaluate_per_second_all_cores >= TARGETS.core_per_second),
  ],
  ...["large_untiered", "large_tiered", "crossing_tiered", "adversarial_tiered"].map((name) => [
    `core decidePlan, 64 of 512 segments, ${name.replace("_", ", ")}`,
    `${plan[name].cpu_us} µs CPU (${plan[name].gate_decisions_per_plan} gate decisions; ≤ ${fmt(plan[name].most_nodes)} nodes, ${plan[name].not_exact} not exact)`,
    "≤ 1,000 µs",
    verdict(plan[name].cpu_us <= 1_000),
  ]),
  [
    "  adversarial, a budget per knapsack (before)",
    `${fmt(plan.adversarial_tiered.cpu_us_budget_per_knapsack)} µs CPU`,
    "",
    "",
  ],
  [
    `replay, ${fmt(replay.calls)} calls under every policy`,
    `${replay.replay_all_policies_ms} ms CPU (+ ${replay.parse_ms} ms to parse ${(replay.bytes / 1048576).toFixed(1)} MiB)`,
    "< 1,000 ms",
    verdict(replay.replay_all_policies_ms + replay.parse_ms < 1_000),
  ],
  [
    `sync CPU, ${fmt(sync.snapshots[1])} same-price snapshots (${(sync.bytes[1] / 1048576).toFixed(1)} MiB)`,
    `${fmt(sync.cpu_ms[1])} ms; ${fmt(sync.snapshots[0])}: ${fmt(sync.cpu_ms[0])} ms; ratio 2N ÷ N ${sync.ratio_2n_over_n}`,
    "≈ 2 (linear)",
    verdict(sync.ratio_2n_over_n < 3),
  ],
  [
    "GET /healthz saturated",
    `${fmt(saturated.healthz.req_per_second)} req/s  p50 ${saturated.healthz.p50_ms} ms  p99 ${saturated.healthz.p99_ms} ms`,
    "",
    "",
  ],
  [
    "POST /v1/gate saturated",
    `${fmt(saturated.gate.req_per_second)} req/s  p50 ${saturated.gate.p50_ms} ms  p99 ${saturated.gate.p99_ms} ms`,
    "",
    "",
  ],
  [
    "POST /__bench/echo saturated (no gate)",
    `${fmt(saturated.echo.req_per_second)} req/s  p50 ${saturated.echo.p50_ms} ms  p99 ${saturated.echo.p99_ms} ms`,
    "",
    "",
  ],
  [
    "  throughput gate ÷ echo (median over turns)",
    results.ratios.throughput_gate_over_echo,
    `≥ ${TARGETS.throughput_ratio}`,
    verdict(results.ratios.throughput_gate_over_echo >= TARGETS.throughput_ratio),
  ],
  ["  throughput gate ÷ healthz (median over turns)", results.ratios.throughput_gate_over_healthz, "", ""],
  ...["healthz", "gate", "echo"].map((name) => [
    `${ROUTE_LABELS[name]} at ${fmt(fixed.offered_req_per_second)} req/s`,
    `${fmt(fixed[name].req_per_second)} req/s  p50 ${fixed[name].p50_ms} ms  p99 ${fixed[name].p99_ms} ms`,
    "",
    "",
  ]),
  [
    "  p99 gate ÷ echo (median over turns)",
    results.ratios.p99_gate_over_echo_at_fixed_load,
    `≤ ${TARGETS.p99_ratio}`,
    verdict(results.ratios.p99_gate_over_echo_at_fixed_load <= TARGETS.p99_ratio),
  ],
  ["  p99 gate ÷ healthz (median over turns)", results.ratios.p99_gate_over_healthz_at_fixed_load, "", ""],
  [
    "in process, µs per request (no sockets)",
    `gate ${inProcess.per_request_us.gate}, echo ${inProcess.per_request_us.echo}, healthz ${inProcess.per_request_us.healthz}; gate − echo ${inProcess.gate_minus_echo_us}`,
    "",
    "",
  ],
  [
    "  parts, µs each",
    Object.entries(inProcess.parts_us)
      .map(([part, us]) => `${part} ${us}`)
      .join(", "),
    "",
    "",
  ],
  [
    "POST /v1/gate/batch (100 items)",
    `${fmt(batch.decisions_per_second)} decisions/s (${fmt(batch.req_per_second)} req/s, p99 ${batch.p99_ms} ms)`,
    "",
    "",
  ],
  [
    "POST /v1/gate, simulated rate limiter",
    `${fmt(http.with_simulated_rate_limiter.gate.req_per_second)} req/s, ÷ healthz ${results.ratios.throughput_gate_over_healthz_with_simulated_limiter}`,
    "",
    "miniflare's limiter",
  ],
  [
    "POST /v1/gate, outcomes ledger in the same process",
    `${fmt(http.with_local_ledger.gate.req_per_second)} req/s, ÷ healthz ${results.ratios.throughput_gate_over_healthz_with_local_ledger}`,
    "",
    "local Durable Object",
  ],
  [
    "KV reads during the run",
    `${fmt(kv.reads_during_run)} for ${fmt(kv.gate_requests)} gate requests over ${kv.run_seconds} s`,
    "",
    "",
  ],
  ["  per key per TTL (60 s)", `${kv.reads_per_key_per_ttl} over ${kv.keys_read} keys`, "≈ 1", ""],
  ["non-2xx + socket errors", errors, "0", verdict(errors === 0)],
  [
    "script size (production, wrangler deploy --dry-run)",
    `${coldStart.size.gzip_kib} KiB gzipped (${coldStart.size.kib} KiB); hello-world ${coldStart.hello_world_size.gzip_kib} KiB`,
    `≤ ${TARGETS.script_gzip_kib} KiB`,
    verdict(coldStart.size.gzip_kib <= TARGETS.script_gzip_kib),
  ],
  [
    "startup CPU (wrangler check startup, median of 5)",
    `${coldStart.startup.gate_ms} ms (first sample's span ${coldStart.startup.gate_first_span_ms}, then ${coldStart.startup.gate_after_first_ms}); hello-world ${coldStart.startup.hello_world_ms} ms`,
    `≤ ${TARGETS.startup_ms} ms`,
    verdict(coldStart.startup.gate_ms <= TARGETS.startup_ms),
  ],
  [
    "first answer of a fresh isolate, GET /healthz (median of 5)",
    `${coldStart.first_request.deployed.first_answer_ms} ms; with the app built on it instead: ${coldStart.first_request.app_on_first_request.first_answer_ms} ms`,
    `≤ ${TARGETS.first_answer_ms} ms`,
    verdict(coldStart.first_request.deployed.first_answer_ms <= TARGETS.first_answer_ms),
  ],
  [
    "first answer of a fresh isolate, POST /v1/gate (KV reads included)",
    `${coldStart.first_request.deployed.first_gate_answer_ms} ms; with the app built on it instead: ${coldStart.first_request.app_on_first_request.first_gate_answer_ms} ms`,
    "",
    "",
  ],
];
console.log(`\n${table(rows)}\n`);
console.log(`KV reads by key (warm-up included): ${JSON.stringify(kv.reads_by_key)}`);
console.log(
  `machine load average: ${about.load_average_at_start} at start, ${results.machine.load_average_at_end} at end (the machine is shared)`,
);
console.log("written to bench/results.json");
