// Starts a bundled worker in workerd through miniflare's API, on 127.0.0.1
// only, with a fresh in-memory KV seeded from pricing.seed.json: for the
// benchmarks and the soak (bench/) and `npm run simulate`.
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bundle, ROOT } from "./bundle.mjs";

/**
 * Runs `scriptPath` in workerd on 127.0.0.1:`port` with the bindings
 * wrangler.toml declares, seeds KV and sets `config:gate`. Returns the base URL, the KV namespace,
 * the key layout (src/storage/rules/keys.ts), and a stop function.
 *
 * @example
 * const worker = await startWorker({ scriptPath, port: 8820, config: { pricing_cache_ttl_seconds: 5 } });
 */
export async function startWorker({
  scriptPath,
  port,
  config = null,
  bindings = {},
  inspectorPort,
  rateLimits = true,
  ledger = true,
  queues = false,
}) {
  // Every binding wrangler.toml declares (KV, Analytics Engine, rate
  // limits...), as `wrangler dev` would set them up, with in-memory storage.
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml"));
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      compatibilityDate: workerOptions.compatibilityDate,
      compatibilityFlags: workerOptions.compatibilityFlags,
      kvNamespaces: workerOptions.kvNamespaces,
      // The outcomes ledger's shards, SQLite-backed, in memory: every run starts
      // empty. `ledger: false` leaves the binding out (the gate then skips the
      // ledger), as the benchmark's main measurement does.
      durableObjects: ledger ? workerOptions.durableObjects : {},
      analyticsEngineDatasets: workerOptions.analyticsEngineDatasets,
      // `queues: true` adds LEDGER_QUEUE and its consumer (bench/ledger-queue.mjs);
      // without it the gate writes to the shards directly.
      ...(queues ? { queueProducers: workerOptions.queueProducers, queueConsumers: workerOptions.queueConsumers } : {}),
      // A rate limit a deployment configures would cap the load itself: the
      // limiter still runs on every request, with a limit the load never
      // reaches. `rateLimits: false` leaves the binding out altogether (see
      // bench/http.mjs for why the benchmark measures both).
      ratelimits: Object.fromEntries(
        Object.entries(rateLimits ? (workerOptions.ratelimits ?? {}) : {}).map(([name, options]) => [
          name,
          { ...options, simple: { ...options.simple, limit: 1_000_000_000 } },
        ]),
      ),
      host: "127.0.0.1",
      port,
      ...(inspectorPort === undefined ? {} : { inspectorPort }),
      modules: true,
      scriptPath,
      bindings: { ...workerOptions.bindings, ...bindings },
    }),
  );
  const url = await mf.ready;
  if (url.hostname !== "127.0.0.1") throw new Error(`refusing to run on ${url.hostname}: loopback only`);
  const kv = await mf.getKVNamespace("PRICING");
  // The worker's own key layout (src/storage/rules/keys.ts), bundled for Node.
  const keys = await import(await bundle("src/storage/rules/keys.ts", "keys"));
  const seed = JSON.parse(readFileSync(join(ROOT, "pricing.seed.json"), "utf8"));
  for (const { key, value } of keys.rowEntries(seed.models)) await kv.put(key, value);
  if (config !== null) await kv.put(keys.GATE_CONFIG_KEY, JSON.stringify(config));
  return { mf, kv, keys, seed, base: url.origin, stop: () => mf.dispose() };
}

/** The workerd processes this Node process started (miniflare spawns one). */
export function workerdPids() {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (Number(fields[1]) === process.pid && comm.startsWith("workerd")) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Resident memory of a process in MiB, from /proc. */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

/** The workerd version miniflare runs. */
export function workerdVersion() {
  return JSON.parse(readFileSync(join(ROOT, "node_modules", "workerd", "package.json"), "utf8")).version;
}
