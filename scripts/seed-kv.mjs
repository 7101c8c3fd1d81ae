// `npm run dev`'s quick seed of LOCAL KV (binding PRICING) from
// pricing.seed.json: one bulk put of every `pricing:<model>` and
// `alias:<name>` key, offline and fast. Local only: every other write, and
// every remote one, goes through the ops CLI (`npm run pricing -- seed`),
// which diffs first, asks, and records history.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function bulkEntries(seed) {
  const entries = [];
  for (const [model, row] of Object.entries(seed.models)) {
    entries.push({ key: `pricing:${model}`, value: JSON.stringify(row) });
    for (const alias of row.aliases ?? []) entries.push({ key: `alias:${alias}`, value: model });
  }
  return entries;
}

export function seedKv({ target, seedPath = "pricing.seed.json", quiet = false }) {
  if (target !== "--local") throw new Error("seed-kv.mjs writes local KV only (--local); use `npm run pricing -- seed --remote` for the deployed namespace");
  const seed = JSON.parse(readFileSync(seedPath, "utf8"));
  const file = join(mkdtempSync(join(tmpdir(), "offload-gate-")), "bulk.json");
  const entries = bulkEntries(seed);
  writeFileSync(file, JSON.stringify(entries));
  const result = spawnSync(
    "npx",
    ["wrangler", "kv", "bulk", "put", file, "--binding", "PRICING", target],
    { stdio: quiet ? "pipe" : "inherit", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  if (result.status !== 0) {
    if (quiet) process.stderr.write(result.stderr ?? "");
    throw new Error(`seeding local KV failed (exit ${result.status})`);
  }
  console.log(`seeded ${entries.length} keys (${Object.keys(seed.models).length} models) into local KV`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    seedKv({ target: process.argv[2] });
  } catch (error) {
    console.error(`seed: ${error.message}`);
    process.exit(1);
  }
}
