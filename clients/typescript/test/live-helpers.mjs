// What the adapters' live tests share: the local gate's address and keys,
// the savings report for one tool, a gate that is down, and a holdout turned
// on for a while through the admin API (npm run test:clients runs these files
// one at a time, so no other test sees it).
import { createServer } from "node:net";

export const baseUrl = process.env.OFFLOAD_GATE_TEST_URL;
export const apiKey = process.env.OFFLOAD_GATE_TEST_API_KEY;
const adminToken = process.env.OFFLOAD_GATE_TEST_ADMIN_TOKEN;
if (baseUrl === undefined && process.env.OFFLOAD_GATE_REQUIRE_INTEGRATION)
  throw new Error("OFFLOAD_GATE_TEST_URL is not set");
export const skip = baseUrl === undefined && "no running gate";
export const MODEL = "claude-opus-4-6";
/** The seed row of MODEL, $ per million tokens: the bill is checked against it, not against the gate's own code. */
export const RATES = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 };

/** A tool name no other test uses, so the savings report for it holds only this test's decisions. */
export const uniqueTool = (prefix) => `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** About 40,000 tokens of tool output (4 characters a token), different for each seed. */
export const bigOutput = (seed, chars = 160_000) =>
  `report ${seed}\n` +
  "lorem ipsum dolor sit amet ".repeat(Math.ceil(chars / 27)).slice(0, chars - 8 - String(seed).length);

/** The id a stub names, as a model would read it. */
export const stubId = (text) => /\{"id":"([^"]+)"\}/.exec(text)?.[1];

/** The savings report for one tool, or the tenant's whole report when no tool is named. */
export async function savings(toolName) {
  const query = toolName === undefined ? "" : `?tool_name=${encodeURIComponent(toolName)}`;
  const response = await fetch(`${baseUrl}/v1/savings${query}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  if (!response.ok) throw new Error(`GET /v1/savings: HTTP ${response.status}`);
  return response.json();
}

/** The bill of a usage sum at MODEL's seed rates (no long-context tier at these sizes). */
export const billOf = (usage) =>
  (usage.input_tokens * RATES.input +
    usage.output_tokens * RATES.output +
    usage.cache_read_input_tokens * RATES.cache_read +
    usage.cache_creation_input_tokens * RATES.cache_write) /
  1e6;

/** A loopback port nothing listens on. */
export function closedPort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function admin(method, body) {
  const response = await fetch(`${baseUrl}/v1/admin/config`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} /v1/admin/config: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * Runs `fn(sessionId)` with half the sessions held out, in a session the gate
 * holds out for `toolName` (found by asking it), then puts the config back.
 */
export async function inHoldoutSession(gate, toolName, fn) {
  if (!adminToken) throw new Error("OFFLOAD_GATE_TEST_ADMIN_TOKEN is not set");
  const before = (await admin("GET")).stored ?? {};
  await admin("PUT", { ...before, holdout_fraction: 0.5 });
  try {
    for (let i = 0; i < 64; i += 1) {
      const sessionId = `held-${toolName}-${i}`;
      const probe = await gate.decide(
        {
          model_name: MODEL,
          output_tokens: 40_000,
          pricing_mode: "cache_aware",
          session_id: sessionId,
          tool_name: toolName,
        },
        { raiseOnError: true },
      );
      if (probe.reason_code === "holdout") return await fn(sessionId);
    }
    throw new Error("no held-out session among 64 at holdout_fraction 0.5");
  } finally {
    await admin("PUT", before);
  }
}

/**
 * A session log's lines through the repository's own `npm run replay -- FILE --json`.
 *
 * @example
 * const report = replayLog(lines); // report.issues, report.sessions[0].check.recorded_usd
 */
export async function replayLog(lines) {
  const { spawnSync } = await import("node:child_process");
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const root = new URL("../../../", import.meta.url).pathname;
  const file = join(mkdtempSync(join(tmpdir(), "offload-log-")), "session.jsonl");
  writeFileSync(file, lines.join(""));
  const tsx = join(root, "node_modules/tsx/dist/cli.mjs");
  const run = spawnSync(process.execPath, [tsx, "scripts/replay/cli.ts", file, "--json"], {
    cwd: root,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`npm run replay failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/**
 * Runs `fn()` with `patch` laid over the stored gate config (through the admin API, as an operator
 * would), then puts the config back.
 *
 * @example
 * await withGateConfig({ proxy_modes: { clients: "enforce" }, holdout_fraction: 0 }, () => runSession());
 */
export async function withGateConfig(patch, fn) {
  if (!adminToken) throw new Error("OFFLOAD_GATE_TEST_ADMIN_TOKEN is not set");
  const before = (await admin("GET")).stored ?? {};
  await admin("PUT", { ...before, ...patch });
  try {
    return await fn();
  } finally {
    await admin("PUT", before);
  }
}
