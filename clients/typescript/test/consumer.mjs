// Packs the client as npm would publish it, unpacks it into a throwaway
// consumer project (beside hono, its one dependency), and compiles the
// consumer's code with tsc from node_modules under two plain tsconfigs: a
// Node project (@types/node, no DOM) and a browser project (DOM, no types).
// Neither has Workers types or JSX settings.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
// The repository's own installs: the consumer links them as npm would install them.
const moduleDir = (name) => join(here, "../../node_modules", name);

const run = (command, args, cwd) => {
  const result = spawnSync(command, args, { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
};

const CONFIGS = {
  node: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022"], types: ["node"] },
  browser: { target: "ES2022", module: "ESNext", moduleResolution: "Bundler", lib: ["ES2022", "DOM"], types: [] },
};

const work = mkdtempSync(join(tmpdir(), "offload-gate-consumer-"));
try {
  run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", work], here);
  const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
  for (const [name, options] of Object.entries(CONFIGS)) {
    const project = join(work, name);
    const installed = join(project, "node_modules/offload-gate-client");
    mkdirSync(installed, { recursive: true });
    run("tar", ["xzf", join(work, tarball), "-C", installed, "--strip-components=1"], project);
    symlinkSync(moduleDir("hono"), join(project, "node_modules/hono"));
    if (options.types.includes("node")) {
      mkdirSync(join(project, "node_modules/@types"), { recursive: true });
      symlinkSync(moduleDir("@types/node"), join(project, "node_modules/@types/node"));
      symlinkSync(moduleDir("undici-types"), join(project, "node_modules/undici-types"));
    }
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: `consumer-${name}`, private: true, type: "module" }),
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { ...options, strict: true, noEmit: true, skipLibCheck: false } }, null, 2),
    );
    cpSync(join(here, "test/consumer/main.ts"), join(project, "main.ts"));
    run(process.execPath, [tsc, "-p", "tsconfig.json"], project);
    console.log(`typescript-client: a plain ${name} project compiles against the packed client (${tarball})`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
