// Bundles what the benchmark and the soak run: the worker (optionally behind
// the bench entry that counts KV reads) and the pure core, with esbuild.
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "bench");

/**
 * Bundles one entry to dist/bench/<name>.mjs for workerd (or Node) and
 * returns the file's path.
 *
 * @example
 * const scriptPath = await bundle("bench/worker-entry.ts", "worker");
 */
export async function bundle(entry, name) {
  mkdirSync(OUT, { recursive: true });
  const outfile = join(OUT, `${name}.mjs`);
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    // As wrangler does: the bundle is what deploys, minus the minifier.
    minify: false,
    logLevel: "warning",
  });
  return outfile;
}
