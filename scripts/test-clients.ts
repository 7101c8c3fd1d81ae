// `npm run test:clients` (.ci/run runs it after `npm test`): the agent
// clients, end to end. Installs the TypeScript client's own pinned framework
// SDKs (clients/typescript/package-lock.json; the root install leaves them
// out, docs/testing.md § A light install), builds the TypeScript client, runs
// its unit tests and compiles plain consumer projects against the packed
// package; then starts a throwaway local gate (wrangler dev on 127.0.0.1,
// seeded KV, a gate key) and runs both clients against it: the TypeScript live
// tests, the AI SDK, LangChain.js, Claude Agent SDK, OpenAI Agents SDK,
// opencode and GitHub Copilot SDK adapters' agent loops, Claude Code and Gemini CLI through the hook command
// (the real Gemini CLI too, headless, against a mock Gemini API), Claude Code and Codex CLI through the
// proxy (its upstreams the proxy-clis test's mock provider, its sessions reported seconds after they idle)
// (each framework's own loop against a mock model on loopback or in-process),
// and the Python package's install and pytest suite (clients/python/ci.sh).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { startLocalGate, type LocalGate } from "./local-gate";

const tscBin = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const PORT = Number(process.env.OFFLOAD_GATE_TEST_PORT ?? 8880);
/** Where the proxy-clis test starts its mock provider: the local gate's proxy sends there. */
const PROVIDER_PORT = PORT + 2;

function step(
  title: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): void {
  console.log(`\ntest:clients: ${title}`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: "inherit", env, cwd });
  if (result.status !== 0) throw new Error(`${title} failed (exit ${result.status ?? result.signal})`);
  console.log(`test:clients: ${title}: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

let gate: LocalGate | undefined;
try {
  step(
    "install the TypeScript client's framework SDKs (npm ci in clients/typescript)",
    "npm",
    ["ci", "--no-audit", "--no-fund"],
    { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    "clients/typescript",
  );
  step("build the TypeScript client", process.execPath, ["clients/typescript/scripts/build.mjs"]);
  step("TypeScript client unit tests", process.execPath, [
    "--test",
    "clients/typescript/test/client.test.mjs",
    "clients/typescript/test/session.test.mjs",
    "clients/typescript/test/session-log.test.mjs",
    "clients/typescript/test/openai-agents-plan.test.mjs",
    "clients/typescript/test/mcp.test.mjs",
    "clients/typescript/test/hook.test.mjs",
    "clients/typescript/test/cache-diagnostics.test.mjs",
    "clients/typescript/test/gemini-cli-session-end.test.mjs",
  ]);
  // The hook commands as a user installs and runs them: the docs' commands against a loopback
  // registry (no other package name asked for), and the red team's attacks on the installed bins.
  step("the hook commands, installed", process.execPath, [
    "--test",
    "--test-concurrency=1",
    "clients/typescript/test/hook-docs.test.mjs",
    "clients/typescript/test/hook-attacks.test.mjs",
  ]);
  step("the framework examples type-check", process.execPath, [
    tscBin,
    "-p",
    "clients/typescript/examples/tsconfig.json",
  ]);
  step("plain consumer projects compile against the packed client", process.execPath, [
    "clients/typescript/test/consumer.mjs",
  ]);

  const key = randomBytes(16).toString("hex");
  // The adapters' holdout tests turn the holdout on for a while through the admin API.
  const adminToken = randomBytes(16).toString("hex");
  console.log(`\ntest:clients: starting a local gate on 127.0.0.1:${PORT} (a gate key required)`);
  gate = await startLocalGate({
    port: PORT,
    inspectorPort: PORT + 1,
    stateDir: ".wrangler/clients-state",
    vars: {
      GATE_API_KEYS: `clients:${key}`,
      ADMIN_TOKEN: `clients-admin:${adminToken}`,
      ANTHROPIC_UPSTREAM: `http://127.0.0.1:${PROVIDER_PORT}/anthropic`,
      OPENAI_UPSTREAM: `http://127.0.0.1:${PROVIDER_PORT}/openai`,
      // A CLI's session is reported to the ledger 4 s after its last request, not 65 minutes.
      PROXY_SESSION_IDLE_MS: "4000",
    },
  });
  const env = {
    ...process.env,
    OFFLOAD_GATE_TEST_URL: gate.baseUrl,
    OFFLOAD_GATE_TEST_API_KEY: key,
    OFFLOAD_GATE_TEST_ADMIN_TOKEN: adminToken,
    OFFLOAD_GATE_REQUIRE_INTEGRATION: "1",
    OFFLOAD_GATE_TEST_PROVIDER_PORT: String(PROVIDER_PORT),
  };
  step(
    "TypeScript client against the local gate",
    process.execPath,
    ["--test", "clients/typescript/test/live.test.mjs"],
    env,
  );
  // One file a step: a holdout test changes the gate config, and no other test may run meanwhile.
  for (const framework of [
    "ai-sdk",
    "langchain",
    "claude-agent-sdk",
    "openai-agents",
    "opencode",
    "copilot-sdk",
    "claude-code-hook",
    "gemini-cli-hook",
    "gemini-cli",
    "proxy-clis",
  ]) {
    step(
      framework === "proxy-clis"
        ? "Claude Code and Codex CLI through the local gate's proxy"
        : `the ${framework} adapter against the local gate`,
      process.execPath,
      ["--test", `clients/typescript/test/${framework}.live.test.mjs`],
      env,
    );
  }
  step(
    "the adapter pages' framework examples (docs/integrating/) against the local gate",
    process.execPath,
    ["--test", "clients/typescript/test/examples.test.mjs"],
    env,
  );
  step("Python client: install, unit and integration tests", "bash", ["clients/python/ci.sh"], env);
  console.log("\ntest:clients: all passed");
} catch (error) {
  console.error(`\ntest:clients: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await gate?.stop();
}
