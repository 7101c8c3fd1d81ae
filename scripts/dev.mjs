// `npm run dev`: seed local KV from pricing.seed.json, then serve the worker
// on 127.0.0.1:8787 with wrangler dev, offline (no telemetry).
import { spawn } from "node:child_process";
import { seedKv } from "./seed-kv.mjs";

seedKv({ target: "--local", quiet: true });
// Offline by design: no telemetry, and no fetch of the `Request.cf` placeholder.
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const dev = spawn("npx", ["wrangler", "dev", "--ip", "127.0.0.1", "--port", "8787", ...process.argv.slice(2)], {
  stdio: "inherit",
  env,
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => process.exit(code ?? 0));
