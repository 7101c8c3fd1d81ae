// Global setup for `npm run test:e2e`: seeds a throwaway local KV (its own
// persist dir, so `npm run dev` state is untouched) and serves the worker
// with `wrangler dev` on 127.0.0.1:8835, offline.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pricingKey, rowEntries } from "../src/store/keys";

export const PORT = 8835;
const INSPECTOR_PORT = 8836;
export const BASE_URL = `http://127.0.0.1:${PORT}`;
export const ADMIN_TOKEN = "e2e-admin-token-not-a-secret";
const STATE_DIR = ".wrangler/e2e-state";
const START_BUDGET_MS = 120_000;

/** Rows the browser test needs beyond the seed: one past 90 days, one corrupt. */
export const EXTRA_ROWS = {
  "legacy-model-2025": JSON.stringify({ input: 2, output: 8, provider: "legacy", aliases: ["legacy-2025-01"], verified_at: "2025-01-15" }),
  "broken-model": JSON.stringify({ input: -1, output: 4 }),
};

const offline = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
let server: ChildProcess | undefined;

export async function setup(): Promise<void> {
  rmSync(STATE_DIR, { recursive: true, force: true });
  mkdirSync(STATE_DIR, { recursive: true });
  const seed = JSON.parse(readFileSync("pricing.seed.json", "utf8"));
  const entries = [...rowEntries(seed.models), ...Object.entries(EXTRA_ROWS).map(([model, value]) => ({ key: pricingKey(model), value }))];
  const bulk = join(STATE_DIR, "bulk.json");
  writeFileSync(bulk, JSON.stringify(entries));
  const put = spawnSync("npx", ["wrangler", "kv", "bulk", "put", bulk, "--binding", "PRICING", "--local", "--persist-to", STATE_DIR], {
    env: offline,
    encoding: "utf8",
  });
  if (put.status !== 0) throw new Error(`seeding e2e KV failed: ${put.stderr}`);

  server = spawn(
    "npx",
    ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(PORT), "--inspector-port", String(INSPECTOR_PORT),
      "--persist-to", STATE_DIR, "--var", `ADMIN_TOKEN:${ADMIN_TOKEN}`, "--show-interactive-dev-session=false",
      // Not the developer's .dev.vars: a GATE_API_KEYS there would close the gate the test calls.
      "--env-file=/dev/null"],
    { env: offline, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  server.stdout?.on("data", (chunk) => (log += chunk));
  server.stderr?.on("data", (chunk) => (log += chunk));

  const deadline = Date.now() + START_BUDGET_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log}`);
    try {
      if ((await fetch(`${BASE_URL}/healthz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await teardown();
  throw new Error(`wrangler dev did not answer on ${BASE_URL} within ${START_BUDGET_MS} ms:\n${log}`);
}

export async function teardown(): Promise<void> {
  if (server?.pid === undefined || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server?.once("exit", resolve));
  // The whole process group: npx, wrangler and its workerd.
  process.kill(-server.pid, "SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  if (server.exitCode === null) process.kill(-server.pid, "SIGKILL");
}
