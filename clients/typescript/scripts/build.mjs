// `npm run build` (and `npm pack`): regenerate src/app-type.ts from the
// worker's routes, compile src/ to dist/ (JavaScript and .d.ts), and bundle
// replay's transcript parser into dist/replay-transcript.js.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

const step = (args) => {
  const result = spawnSync(process.execPath, args, { cwd: here, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
step([join(here, "scripts/generate-types.mjs")]);
rmSync(join(here, "dist"), { recursive: true, force: true });
step([tsc, "-p", "tsconfig.json"]);
// Replay's own transcript parser (src/replay, through its front door), bundled for the hook
// commands' session reports (src/transcript-report.ts): pure code, no worker bindings.
const { buildSync } = createRequire(import.meta.url)("esbuild");
buildSync({
  entryPoints: [join(here, "scripts/replay-entry.ts")],
  outfile: join(here, "dist/replay-transcript.js"),
  bundle: true,
  format: "esm",
  platform: "node",
  logLevel: "warning",
});
console.log("typescript-client: built dist/");
