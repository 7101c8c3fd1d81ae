// Every hook and recall command the docs show, run as a user runs it: read
// from the docs (so a new command there is covered without touching this
// file), checked to name the package it runs, and run against the packed
// client with npm pointed at a loopback registry that serves only that
// package and its dependency and fails the test on a request for any name
// the package does not declare (npm reads its optional peers' metadata, and
// installs none of them); without `--package`, npx would ask for a
// stranger's package named after the bin. docs/integrating/claude-code.md.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  CLIENT_DIR,
  clientManifest,
  fakeGate,
  loopbackRegistry,
  PACKAGE_BINS,
  PACKAGE_NAME,
  packClient,
  packInstalled,
  spawnAsync,
} from "./installed.mjs";

const REPO = join(CLIENT_DIR, "../..");

/** The pages that may show a command: every Markdown file of docs/, and the READMEs. */
function docPages() {
  const pages = [join(REPO, "README.md"), join(CLIENT_DIR, "README.md")];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".md")) pages.push(path);
    }
  };
  walk(join(REPO, "docs"));
  return pages;
}

const split = (command) => command.trim().split(/\s+/);

/** The commands one page shows: `command` (and `args`) of its JSON, and each `npx …` in its code. */
export function commandsIn(text) {
  const found = [];
  const walk = (value) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") {
      if (typeof value.command === "string")
        found.push(Array.isArray(value.args) ? [value.command, ...value.args] : split(value.command));
      Object.values(value).forEach(walk);
    }
  };
  const json = (code) => {
    try {
      walk(JSON.parse(code));
      return true;
    } catch {
      return false;
    }
  };
  const npx = (code) => {
    for (const line of code.split("\n")) {
      const at = line.search(/(^|\s)npx\s/);
      if (at >= 0) found.push(split(line.slice(at)));
    }
  };
  const rest = text.replace(/```[^\n]*\n([\s\S]*?)```/g, (_, code) => {
    if (!json(code)) npx(code);
    return "";
  });
  for (const [, code] of rest.matchAll(/`([^`\n]+)`/g)) if (!(code.startsWith("{") && json(code))) npx(code);
  return found.filter((argv) => argv.some((a) => PACKAGE_BINS.some((bin) => a === bin || a.endsWith(`/${bin}`))));
}

/** A command written with a placeholder (`offload-gate-hook …`): checked for the package it names, not run. */
const placeholder = (argv) => argv.some((a) => a === "…" || a === "...");

/** Every command the docs show, once each, with the page it is on. */
function documentedCommands() {
  const seen = new Map();
  for (const page of docPages())
    for (const argv of commandsIn(readFileSync(page, "utf8")))
      if (!seen.has(JSON.stringify(argv))) seen.set(JSON.stringify(argv), { argv, page });
  return [...seen.values()];
}

/** Where the bin is in a command, and what it is asked to do. */
function kind(argv) {
  const at = argv.findIndex((a) => PACKAGE_BINS.some((bin) => a === bin || a.endsWith(`/${bin}`)));
  const bin = argv[at].split("/").at(-1);
  return bin === "offload-gate-recall" ? "recall-dir" : argv[at + 1];
}

/** The packages an `npx` command names (`--package X`, `-p X`), by name without their version. */
const namedPackages = (argv) =>
  argv.flatMap((a, i) => (a === "--package" || a === "-p" ? [argv[i + 1].replace(/(?<=.)@[^@/]*$/, "")] : []));

const hex = (s) => Buffer.from(s, "utf8").toString("hex");
const ORIGINAL = Array.from({ length: 600 }, (_, i) => `build step ${i}: ok ${"·".repeat(40)}`).join("\n");
// Under Gemini CLI's page size (30,000 characters), so its original comes back whole in one recall.
const GEMINI_ORIGINAL = ORIGINAL.slice(0, 25_000);

/** A bin run by its bare name: found on PATH after an install, never looked up in a registry. */
const bareBin = (a) => PACKAGE_BINS.includes(a);

describe("the hook and recall commands the docs show", { concurrency: false }, () => {
  const shown = documentedCommands();
  const commands = shown.filter(({ argv }) => !placeholder(argv));
  let gate;
  let registry;
  const npmEnv = (cache) => ({
    ...process.env,
    npm_config_registry: registry.url,
    npm_config_cache: cache,
    npm_config_prefix: join(cache, "global"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  });

  before(async () => {
    gate = await fakeGate();
    registry = await loopbackRegistry(
      {
        [PACKAGE_NAME]: { tarball: packClient(), manifest: clientManifest() },
        // The package's one dependency, as npm fetches it with the package.
        ...Object.fromEntries(Object.keys(clientManifest().dependencies).map((name) => [name, packInstalled(name)])),
      },
      Object.keys(clientManifest().peerDependencies),
    );
  });
  after(() => {
    gate?.close();
    registry?.close();
  });

  it("are found in the docs: Claude Code's and Gemini CLI's hooks and both recall servers", () => {
    const kinds = new Set(commands.map(({ argv }) => kind(argv)));
    assert.deepEqual([...kinds].sort(), ["claude-code", "gemini-cli", "recall", "recall-dir"]);
  });

  it("each name the package they run, never a bare bin name npx would look up as a package", () => {
    for (const { argv, page } of shown) {
      const where = `${argv.join(" ")} (${page})`;
      if (argv[0] === "npx") assert.ok(namedPackages(argv).includes(PACKAGE_NAME), `names no package: ${where}`);
      else if (!bareBin(argv[0]))
        assert.match(argv[0], /^(node|.*node_modules\/\.bin\/offload-gate-\w+)$/, `not an installed path: ${where}`);
    }
  });

  /** Runs every command in `cwd`: the hooks stub through the fake gate, the recall servers give the original back. */
  async function runAll(cwd, env, only = () => true) {
    const root = mkdtempSync(join(tmpdir(), "offload-docs-store-"));
    const session = `docs-${Date.now()}`;
    const base = { ...env, OFFLOAD_GATE_URL: gate.url, OFFLOAD_GATE_MODEL: "claude-opus-4-6" };
    const storeEnv = { ...base, OFFLOAD_GATE_RECALL_DIR: root };
    const ran = [];
    const run = async (argv, input, extra = {}) => {
      const result = await spawnAsync(argv[0], argv.slice(1), { cwd, input, env: { ...storeEnv, ...extra } });
      assert.equal(result.status, 0, `${argv.join(" ")}: exit ${result.status}\n${result.stderr}`);
      ran.push(argv.join(" "));
      return result.stdout;
    };
    const ids = [];
    const selected = commands.filter(({ argv }) => only(argv));
    for (const { argv } of selected.filter(({ argv }) => kind(argv) === "claude-code")) {
      const id = `toolu_docs_${ids.length}`;
      const out = await run(
        argv,
        JSON.stringify({
          hook_event_name: "PostToolUse",
          session_id: session,
          tool_name: "Bash",
          tool_use_id: id,
          tool_response: { stdout: ORIGINAL, stderr: "", interrupted: false, isImage: false },
        }),
      );
      assert.match(JSON.parse(out).hookSpecificOutput.updatedToolOutput.stdout, /^\[offloaded: the output of Bash/);
      ids.push({ id, expected: ORIGINAL });
    }
    for (const { argv } of selected.filter(({ argv }) => kind(argv) === "gemini-cli")) {
      const out = await run(
        argv,
        JSON.stringify({
          hook_event_name: "AfterTool",
          session_id: session,
          tool_name: "run_shell_command",
          tool_response: { llmContent: GEMINI_ORIGINAL },
        }),
      );
      // The hook answers a tail call to the recall tool for the entry holding the stub, which names the original.
      const tail = JSON.parse(out).hookSpecificOutput.tailToolCallRequest;
      assert.equal(tail.name, "mcp_offload_recall_tool_output");
      const stub = readFileSync(join(root, hex(session), `${hex(tail.args.id)}.txt`), "utf8");
      assert.match(stub, /^\[offloaded: the output of run_shell_command/);
      ids.push({ id: tail.args.id, expected: stub });
      ids.push({ id: /"id":"(gcli-[\w-]+)"/.exec(stub)[1], expected: GEMINI_ORIGINAL });
    }
    for (const { argv } of selected.filter(({ argv }) => kind(argv).startsWith("recall"))) {
      const dirArg = argv.indexOf("--dir");
      const command = dirArg < 0 ? argv : argv.map((a, i) => (i === dirArg + 1 ? join(root, hex(session)) : a));
      const lines = [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "docs", version: "0" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        ...ids.map(({ id }, i) => ({
          jsonrpc: "2.0",
          id: 2 + i,
          method: "tools/call",
          params: { name: "recall_tool_output", arguments: { id } },
        })),
      ];
      const out = await run(command, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
      const answers = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      for (let i = 0; i < ids.length; i += 1) {
        const answer = answers.find((a) => a.id === 2 + i);
        assert.equal(
          answer?.result?.content?.[0]?.text,
          ids[i].expected,
          `${command.join(" ")} gives back ${ids[i].id}`,
        );
      }
    }
    return ran;
  }

  it("run in a project that installed the package from the registry, asking it for no other name", async () => {
    const project = mkdtempSync(join(tmpdir(), "offload-docs-project-"));
    // The installed bins on PATH, as a global install or an npm script puts them.
    const env = {
      ...npmEnv(join(project, ".npm-cache")),
      PATH: `${join(project, "node_modules", ".bin")}:${process.env.PATH}`,
    };
    const install = await spawnAsync("npm", ["install", "--no-audit", "--no-fund", PACKAGE_NAME], {
      cwd: project,
      env,
      timeout: 120_000,
    });
    assert.equal(install.status, 0, install.stderr);
    // The recall's optional peers, as the docs say to install them beside it (not from this registry).
    for (const name of ["@modelcontextprotocol/sdk", "zod"]) {
      mkdirSync(dirname(join(project, "node_modules", name)), { recursive: true });
      symlinkSync(join(CLIENT_DIR, "node_modules", name), join(project, "node_modules", name));
    }
    const ran = await runAll(project, env);
    assert.equal(ran.length, commands.length, "every documented command ran");
    assert.deepEqual(registry.foreign, [], "no other package name was asked for");
  });

  it("run where the package is not installed (user-level settings), fetching it and its dependency by name and nothing else", async () => {
    const empty = mkdtempSync(join(tmpdir(), "offload-docs-empty-"));
    const env = npmEnv(join(empty, ".npm-cache"));
    // The recall commands name the MCP SDK too, which this registry does not hold: they ran installed, above.
    // A bare bin needs an install: it ran there, above.
    const ourOnly = (argv) =>
      argv[0] === "npx" ? namedPackages(argv).every((name) => name === PACKAGE_NAME) : !bareBin(argv[0]);
    const ran = await runAll(empty, env, ourOnly);
    assert.ok(ran.length >= 1, `a hook command ran: ${ran.join("; ")}`);
    assert.deepEqual(registry.foreign, [], "no other package name was asked for");
    assert.ok(registry.asked.includes(PACKAGE_NAME));
  });
});
