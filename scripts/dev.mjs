// `npm run dev`: seed local KV from pricing.seed.json, then serve the worker
// on 127.0.0.1:8787 with wrangler dev, offline (no telemetry).
//
// Seeding is the ops CLI's, with --missing-only: it writes only the rows and
// aliases local KV lacks (recording each in the key's history), and names
// every key it kept that differs from the seed, so a restart never undoes a
// price changed through the admin API. `npm run seed:local` resets to the seed.
import { spawn, spawnSync } from "node:child_process";

// Offline by design: no telemetry, and no fetch of the `Request.cf` placeholder.
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const seed = spawnSync("npm", ["run", "--silent", "pricing", "--", "seed", "--local", "--yes", "--missing-only"], {
  stdio: "inherit",
  env,
});
if (seed.status !== 0) {
  console.error(`dev: seeding local KV failed (exit ${seed.status}); not starting wrangler dev`);
  process.exit(seed.status ?? 1);
}
// 127.0.0.1:8787 comes from wrangler.toml's [dev], so flags after `--`
// (`npm run dev -- --port 8903`) reach wrangler alone and win.
const args = process.argv.slice(2);
// Cron Triggers never fire under wrangler dev: --test-scheduled exposes
// /__scheduled, and the learning refresh's cron ("* * * * *") is run through
// it every DEV_SCHEDULED_SECONDS (60 by default; 0 turns it off). The price
// sync's cron is left alone: it fetches a price source, and dev is offline.
const dev = spawn("npx", ["wrangler", "dev", "--test-scheduled", ...args], {
  stdio: "inherit",
  env,
});
const seconds = Number(process.env.DEV_SCHEDULED_SECONDS ?? 60);
const portAt = args.findIndex((arg) => arg === "--port" || arg.startsWith("--port="));
const port = portAt < 0 ? 8787 : Number(args[portAt].includes("=") ? args[portAt].split("=")[1] : args[portAt + 1]);
const timer =
  seconds > 0
    ? setInterval(async () => {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
          if (!res.ok) console.error(`dev: the scheduled learning refresh answered ${res.status}`);
        } catch {
          // wrangler dev is still starting (or restarting): the next tick tries again.
        }
      }, seconds * 1000)
    : undefined;
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code) => {
  clearInterval(timer);
  process.exit(code ?? 0);
});
