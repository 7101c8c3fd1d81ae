// `npm run simulate`: the outcomes ledger's four demonstrations (L1–L4) and
// the adaptive gate's (D4a, D4b, D4shared, D4explore, D5, D6), played against
// the local worker (workerd through miniflare, 127.0.0.1 only, fresh
// in-memory storage, seeded pricing), and each one's figures printed from
// the worker's own reports. Exits non-zero if a demonstration fails its check.
//
//   SIMULATE_SCALE=0.25 npm run simulate   # a quarter of the sessions
//   SIMULATE_PORT=8871 npm run simulate    # another loopback port
//   SIMULATE_ONLY=D4a,D5 npm run simulate  # only those demonstrations
//   npm run simulate -- --json out.json    # every figure under stable keys (`D4a.learning_share`, …)
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { bundle } from "../../build/bundle.mjs";
import { startWorker } from "../../build/workerd.mjs";
import { ADAPTIVE_DEMOS, ADAPTIVE_TENANTS } from "./adaptive-demos.ts";
import { describeAdaptive, runAdaptive } from "./adaptive-judge.ts";
import { demoFigures, describeDemo, runDemo } from "./demo.ts";
import { WORLDS } from "./world.ts";

/** Sessions per demonstration at full size: enough for demonstration 2's verdict to be clear (docs/ledger.md). */
const FULL = { 1: 400, 2: 2_000, 3: 600, 4: 600 };
/** Sessions per policy of the adaptive gate's demonstrations at full size. */
const ADAPTIVE_FULL = {
  D4a: 600,
  D4b: 600,
  D4shared: 600,
  D4explore: 600,
  D4c: 1_200,
  D4c_nocache: 1_200,
  D4c_seed: 1_200,
  D4c_seed_nocache: 1_200,
  D5: 1_200,
  D6: 1_200,
};
// SIMULATE_ONLY names demonstrations: an id that names none would play nothing and pass.
const known = [...WORLDS.map((world) => `L${world.id}`), ...ADAPTIVE_DEMOS.map((demo) => demo.id)];
const unknown = (process.env.SIMULATE_ONLY?.split(",") ?? []).filter((id) => !known.includes(id));
if (unknown.length > 0) {
  console.error(`simulate: SIMULATE_ONLY names no demonstration ${unknown.join(", ")}; the ids: ${known.join(", ")}`);
  process.exit(2);
}
const jsonAt = process.argv.indexOf("--json");
const jsonFile = jsonAt === -1 ? null : process.argv[jsonAt + 1];
if (jsonAt !== -1 && (jsonFile === undefined || jsonFile.startsWith("--"))) {
  console.error("simulate: --json needs a file name");
  process.exit(2);
}
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
// One gate key per tenant: each policy of D4a–D6 learns from its own ledger only.
const tenants = ["default", ...ADAPTIVE_TENANTS];
const keys = new Map(tenants.map((tenant) => [tenant, randomBytes(24).toString("hex")]));
const scriptPath = await bundle("src/index.ts", "simulate-worker");
const worker = await startWorker({
  scriptPath,
  port,
  bindings: {
    ADMIN_TOKEN: `simulator:${token}`,
    GATE_API_KEYS: [...keys].map(([tenant, key]) => `${tenant}:${key}`).join(","),
  },
}).catch((error) => {
  // miniflare's own message says to pass --port, which this script does not read.
  if (error?.code !== "ERR_ADDRESS_IN_USE") throw error;
  console.error(
    `simulate: 127.0.0.1:${port} is in use; run on another loopback port with SIMULATE_PORT, e.g. SIMULATE_PORT=${port + 1} npm run simulate`,
  );
  process.exit(1);
});

/** HTTP to the local worker: admin routes carry the run's token. */
async function send(method, path, body, tenant = "default") {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  headers.authorization = `Bearer ${path.startsWith("/v1/admin/") ? token : keys.get(tenant)}`;
  const res = await fetch(`${worker.base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}

const started = Date.now();
let failed = 0;
let sessions = 0;
/** Every demonstration's figures, `<id>.<key>` → value, for --json. */
const figures = { seed, scale };
const keep = (id, values) => {
  for (const [key, value] of Object.entries(values)) figures[`${id}.${key}`] = value;
};
try {
  console.log(`simulate: ${worker.base}, seed ${seed}, scale ${scale}`);
  // SIMULATE_ONLY=D5,D6 plays only those demonstrations.
  const only = process.env.SIMULATE_ONLY?.split(",");
  for (const world of only === undefined ? WORLDS : WORLDS.filter((w) => only.includes(`L${w.id}`))) {
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
    keep(`L${world.id}`, { ...demoFigures(result), checks_passed: result.checks.every((c) => c.pass) });
  }
  for (const demo of only === undefined ? ADAPTIVE_DEMOS : ADAPTIVE_DEMOS.filter((d) => only.includes(d.id))) {
    const count = Math.max(40, Math.round(ADAPTIVE_FULL[demo.id] * scale));
    sessions += count * (demo.policies.length - 1);
    const result = await runAdaptive(demo, send, { sessions: count, seed, concurrency: 8, refreshes: 20 });
    console.log(`\n${describeAdaptive(result).join("\n")}`);
    failed += result.checks.filter((check) => !check.pass).length;
    keep(demo.id, { ...result.figures, checks_passed: result.checks.every((c) => c.pass) });
  }
  if (jsonFile !== null) {
    writeFileSync(jsonFile, `${JSON.stringify({ ...figures, failed }, null, 2)}\n`);
    console.log(`simulate: figures written to ${jsonFile}`);
  }
  console.log(
    `\nsimulate: ${sessions} sessions in ${((Date.now() - started) / 1000).toFixed(1)} s; ${failed === 0 ? "every check passed" : `${failed} checks FAILED`}`,
  );
} finally {
  await worker.stop();
}
process.exit(failed === 0 ? 0 : 1);
