// `npm run simulate`: the outcomes ledger's four demonstrations, played
// against the local worker (workerd through miniflare, 127.0.0.1 only, fresh
// in-memory storage, seeded pricing), and each one's figures printed from
// the ledger's own report. Exits non-zero if a demonstration fails its check.
//
//   SIMULATE_SCALE=0.25 npm run simulate   # a quarter of the sessions
//   SIMULATE_PORT=8871 npm run simulate    # another loopback port
import { randomBytes } from "node:crypto";
import { bundle } from "../../bench/build.mjs";
import { startWorker } from "../../bench/worker.mjs";
import { describeDemo, runDemo } from "./demo.ts";
import { WORLDS } from "./world.ts";

/** Sessions per demonstration at full size: enough for demonstration 2's verdict to be clear (docs/ledger.md). */
const FULL = { 1: 400, 2: 2_000, 3: 600, 4: 600 };
const scale = Math.min(4, Math.max(0.05, Number(process.env.SIMULATE_SCALE ?? 1)));
const port = Number(process.env.SIMULATE_PORT ?? 8870);
const seed = Number(process.env.SIMULATE_SEED ?? 2026);
const LIMIT_MS = 15 * 60_000;

const watchdog = setTimeout(() => {
  console.error(`simulate: still running after ${LIMIT_MS / 60_000} minutes; stopping`);
  process.exit(2);
}, LIMIT_MS);
watchdog.unref();

// A per-run admin token, never written anywhere: the simulator sets config:gate per world.
const token = randomBytes(24).toString("hex");
const scriptPath = await bundle("src/index.ts", "simulate-worker");
const worker = await startWorker({ scriptPath, port, bindings: { ADMIN_TOKEN: `simulator:${token}` } });

/** HTTP to the local worker: admin routes carry the run's token. */
async function send(method, path, body) {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (path.startsWith("/v1/admin/")) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${worker.base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

const started = Date.now();
let failed = 0;
let sessions = 0;
try {
  console.log(`simulate: ${worker.base}, seed ${seed}, scale ${scale}`);
  for (const world of WORLDS) {
    const count = Math.max(20, Math.round(FULL[world.id] * scale));
    sessions += count;
    const result = await runDemo(world, send, {
      sessions: count,
      seed,
      concurrency: 8,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      now: () => Date.now(),
    });
    console.log(`\n${describeDemo(result).join("\n")}`);
    failed += result.checks.filter((check) => !check.pass).length;
  }
  console.log(`\nsimulate: ${sessions} sessions in ${((Date.now() - started) / 1000).toFixed(1)} s; ${failed === 0 ? "every check passed" : `${failed} checks FAILED`}`);
} finally {
  await worker.stop();
}
process.exit(failed === 0 ? 0 : 1);
