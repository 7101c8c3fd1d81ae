// Cold start, as `wrangler deploy` would ship the worker: the script's size
// (`wrangler deploy --dry-run`) and its startup CPU (`wrangler check
// startup`, which profiles the bundle's top-level evaluation in workerd),
// side by side with a hello-world worker in the same run. `node
// bench/startup.mjs` alone, or as part of `npm run bench`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./build.mjs";

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
    const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(wrangler(["deploy", "--dry-run", "--env", ENV, "--outdir", out], dir));
    if (match === null) throw new Error("wrangler deploy --dry-run printed no size");
    return { kib: Number(match[1]), gzip_kib: Number(match[2]) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Startup CPU in ms: the profile's active time, garbage collection included. */
function startupMs(cwd, args) {
  const profile = join(mkdtempSync(join(tmpdir(), "offload-gate-startup-")), "startup.cpuprofile");
  const match = /Active: ([\d.]+) ms/.exec(wrangler(["check", "startup", "--outfile", profile, ...args], cwd));
  if (match === null) throw new Error("wrangler check startup printed no active time");
  return Number(match[1]);
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
    const startup = { gate_ms: median(gate), hello_world_ms: median(helloWorld), gate_runs_ms: gate, hello_world_runs_ms: helloWorld };
    return { size: bundleSize(ROOT), hello_world_size: bundleSize(hello), startup };
  } finally {
    rmSync(hello, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(benchStartup({ runs: Number(process.env.BENCH_STARTUP_RUNS ?? 5) }), null, 2));
}
