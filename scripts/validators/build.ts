/**
 * `npm run validators`: writes every generated validator module
 * (./generate.ts) and its type declarations; `--check` writes nothing and
 * fails when one is stale.
 *
 * @example
 * npm run validators            # rewrite the modules
 * npm run validators -- --check # exit 1 if one is stale
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate, targets } from "./generate";

const ROOT = join(import.meta.dirname, "..", "..");
const check = process.argv.includes("--check");
let stale = 0;
for (const target of await targets()) {
  const { js, dts } = generate(target);
  for (const [path, text] of [
    [target.path, js],
    [target.path.replace(/\.js$/, ".d.ts"), dts],
  ] as const) {
    const file = join(ROOT, path);
    const current = (() => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return null;
      }
    })();
    if (current === text) continue;
    if (check) {
      stale += 1;
      console.error(`${path} is stale: run npm run validators`);
    } else {
      writeFileSync(file, text);
      console.log(`wrote ${path}`);
    }
  }
}
process.exit(stale > 0 ? 1 : 0);
