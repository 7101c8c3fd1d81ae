// Bundles the console's replay page script (src/routes/console/browser/replay.client.ts,
// which imports src/replay) for the browser into public/console/assets/replay.js, served
// by Workers Static Assets (git-ignored; `npm install`'s postinstall and the browser test run it).
import { build } from "esbuild";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
export const REPLAY_BUNDLE = join(ROOT, "public", "console", "assets", "replay.js");

/** Writes the bundle; resolves to its path. */
export async function bundleReplayPage() {
  await build({
    entryPoints: [join(ROOT, "src", "routes", "console", "browser", "replay.client.ts")],
    outfile: REPLAY_BUNDLE,
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    logLevel: "warning",
  });
  return REPLAY_BUNDLE;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await bundleReplayPage());
