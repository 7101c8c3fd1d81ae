// A throwaway local gate for the tests that talk to `wrangler dev` over HTTP
// (the browser test, the client tests): its own persisted KV (so `npm run
// dev`'s state is untouched), seeded from pricing.seed.json plus any extra
// rows, served on a loopback port, offline; stop() ends its process group.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pricingKey, rowEntries } from "../src/storage/rules/keys";

const OFFLINE = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

/**
 * Seeds `stateDir` and starts `wrangler dev` on 127.0.0.1:`port`; resolves
 * once GET /healthz answers, with the base URL and a stop function.
 *
 * @example
 * const gate = await startLocalGate({ port: 8880, inspectorPort: 8881, stateDir: ".wrangler/clients-state",
 *   vars: { GATE_API_KEYS: "clients:0123456789abcdef0123" } });
 * await fetch(`${gate.baseUrl}/healthz`);
 * await gate.stop();
 */
export interface LocalGateOptions {
  port: number;
  inspectorPort: number;
  /** The persist dir, emptied first: apart from `npm run dev`'s state. */
  stateDir: string;
  /** `--var NAME:VALUE` for each (secrets such as ADMIN_TOKEN or GATE_API_KEYS). */
  vars?: Record<string, string>;
  /** Pricing rows beyond the seed, as stored (JSON text), by model. */
  extraRows?: Record<string, string>;
  /** Any other KV keys to seed, as stored (pending changes, say). */
  extraKeys?: Record<string, string>;
  startBudgetMs?: number;
}

export interface LocalGate {
  baseUrl: string;
  stop: () => Promise<void>;
}

export async function startLocalGate({
  port,
  inspectorPort,
  stateDir,
  vars = {},
  extraRows = {},
  extraKeys = {},
  startBudgetMs = 120_000,
}: LocalGateOptions): Promise<LocalGate> {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const seed = JSON.parse(readFileSync("pricing.seed.json", "utf8"));
  const entries = [
    ...rowEntries(seed.models),
    ...Object.entries(extraRows).map(([model, value]) => ({ key: pricingKey(model), value })),
    ...Object.entries(extraKeys).map(([key, value]) => ({ key, value })),
  ];
  const bulk = join(stateDir, "bulk.json");
  writeFileSync(bulk, JSON.stringify(entries));
  const put = spawnSync(
    "npx",
    ["wrangler", "kv", "bulk", "put", bulk, "--binding", "PRICING", "--local", "--persist-to", stateDir],
    {
      env: OFFLINE,
      encoding: "utf8",
    },
  );
  if (put.status !== 0) throw new Error(`seeding local KV in ${stateDir} failed: ${put.stderr}`);

  const baseUrl = `http://127.0.0.1:${port}`;
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const server = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      stateDir,
      ...varArgs,
      "--show-interactive-dev-session=false",
      // Not the developer's .dev.vars: only the vars given here, so a test knows what the gate requires.
      "--env-file=/dev/null",
    ],
    { env: OFFLINE, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let log = "";
  server.stdout?.on("data", (chunk) => (log += chunk));
  server.stderr?.on("data", (chunk) => (log += chunk));

  const stop = async (): Promise<void> => {
    if (server.pid === undefined || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once("exit", resolve));
    // The whole process group: npx, wrangler and its workerd.
    process.kill(-server.pid, "SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (server.exitCode === null) process.kill(-server.pid, "SIGKILL");
  };

  const deadline = Date.now() + startBudgetMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log}`);
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) return { baseUrl, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await stop();
  throw new Error(`wrangler dev did not answer on ${baseUrl} within ${startBudgetMs} ms:\n${log}`);
}
