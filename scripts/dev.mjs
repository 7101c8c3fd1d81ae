// `npm run dev`: seed local KV from pricing.seed.json, then serve the worker
// on 127.0.0.1:8787 with wrangler dev, offline (no telemetry).
//
// Seeding is the ops CLI's, as `npm run seed:local` runs it: it writes only
// what differs from the seed and records each change in the key's history,
// so local KV is always written one way.
import { spawn, spawnSync } from "node:child_process";

// Offline by design: no telemetry, and no fetch of the `Request.cf` placeholder.
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const seed = spawnSync("npm", ["run", "--silent", "seed:local"], { stdio: "inherit", env });
if (seed.status !== 0) {
  console.error(`dev: seeding local KV failed (exit ${seed.status}); not starting wrangler dev`);
  process.exit(seed.status ?? 1);
}
// 127.0.0.1:8787 comes from wrangler.toml's [dev], so flags after `--`
// (`npm run dev -- --port 8903`) reach wrangler alone and win.
const dev = spawn("npx", ["wrangler", "dev", ...process.argv.slice(2)], {
  stdio: "inherit",
  env,
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
