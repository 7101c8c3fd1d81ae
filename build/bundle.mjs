// Bundles the worker with esbuild as `wrangler deploy` does, for what runs it
// outside wrangler: the benchmarks and the soak (bench/), `npm run simulate`
// and the startup test.
import { build } from "esbuild";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { experimental_readRawConfig, unstable_getMiniflareWorkerOptions } from "wrangler";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "dist", "bench");

// wrangler.toml's `[[rules]] type = "Text"` globs as regular expressions
// over resolved paths, so the bundle imports those files as text, as
// `wrangler deploy` does.
function textRules() {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml"));
  const globs = (workerOptions.modulesRules ?? [])
    .filter((rule) => rule.type === "Text")
    .flatMap((rule) => rule.include);
  return globs.map((glob) => {
    const pattern = glob
      .split("**/")
      .map((part) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*"))
      .join("(?:.*/)?");
    return new RegExp(`(?:^|/)${pattern}$`);
  });
}

// wrangler.toml's [alias] (zod without its locales), as `wrangler deploy`
// applies it, so the benchmark runs the script that deploys.
function aliases() {
  const { rawConfig } = experimental_readRawConfig({ config: join(ROOT, "wrangler.toml") });
  return Object.fromEntries(
    Object.entries(rawConfig.alias ?? {}).map(([from, to]) => [from, to.startsWith(".") ? join(ROOT, to) : to]),
  );
}

const textPlugin = {
  name: "wrangler-text-rules",
  setup(esbuild) {
    const rules = textRules();
    esbuild.onLoad({ filter: /.*/ }, (args) =>
      rules.some((rule) => rule.test(args.path))
        ? { contents: readFileSync(args.path, "utf8"), loader: "text" }
        : undefined,
    );
  },
};

/**
 * esbuild's options for the worker as `wrangler deploy` bundles it (its
 * alias, its text rules, the runtime's modules left out), minus the
 * minifier; test/node/startup.test.ts bundles the entry with the same.
 *
 * @example
 * await build({ ...workerBuildOptions(), entryPoints: ["src/index.ts"], outfile: "dist/worker.mjs" });
 */
export function workerBuildOptions() {
  return {
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    // As wrangler does: the bundle is what deploys, minus the minifier.
    minify: false,
    jsx: "automatic",
    jsxImportSource: "hono/jsx",
    alias: aliases(),
    plugins: [textPlugin],
    // The runtime's own modules (the Durable Object base class): workerd provides them.
    external: ["cloudflare:*"],
    logLevel: "warning",
  };
}

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
  await build({ ...workerBuildOptions(), entryPoints: [join(ROOT, entry)], outfile });
  return outfile;
}
