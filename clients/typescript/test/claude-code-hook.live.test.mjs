// Claude Code itself, through its own command hooks and .mcp.json: the
// Claude Code that the Agent SDK bundles, run by query() with the project's
// settings only (settingSources: ["project"]) and its config in a temp dir
// (CLAUDE_CONFIG_DIR), against a mock Anthropic API on loopback and the local
// gate that npm run test:clients starts. Nothing of the adapter is in the
// test's own process: the hook and the recall server are the package's
// `offload-gate-hook` command, as a user's settings would run it.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { createGateClient } from "offload-gate-client";
import { recallAll } from "./recall-client.mjs";
import { startMockAnthropic, toolResults } from "./mock-anthropic.mjs";
import { apiKey, baseUrl, MODEL, skip, stubId } from "./live-helpers.mjs";

const HOOK = fileURLToPath(new URL("../dist/hook.js", import.meta.url));
const RECALL = "mcp__offload__recall_tool_output";
const CHARS = 228_894;
const usage = (input, read, write, output = 40) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
  cache_creation: { ephemeral_5m_input_tokens: write, ephemeral_1h_input_tokens: 0 },
});

/** 228,894 characters of numbered lines, no trailing newline (Bash would trim it). */
function bigText(seed) {
  let text = "";
  for (let i = 0; text.length < CHARS; i += 1)
    text += `${seed} line ${String(i).padStart(6, "0")} of the build log: ok\n`;
  return text.slice(0, CHARS - 1).replace(/\n$/, "x") + "!";
}

/** A project as a user would set it up: the hook in .claude/settings.json, the recall server in .mcp.json. */
function project(recallDir) {
  const cwd = mkdtempSync(join(tmpdir(), "offload-cc-"));
  mkdirSync(join(cwd, ".claude"));
  const hook = `node ${JSON.stringify(HOOK)} claude-code`;
  writeFileSync(
    join(cwd, ".claude/settings.json"),
    JSON.stringify({
      enableAllProjectMcpServers: true,
      hooks: {
        PostToolUse: [{ hooks: [{ type: "command", command: hook }] }],
        // Claude Code gives SessionEnd hooks 1.5 s unless the hook states its own timeout (seconds, up to 60).
        SessionEnd: [{ hooks: [{ type: "command", command: hook, timeout: 30 }] }],
      },
    }),
  );
  writeFileSync(
    join(cwd, ".mcp.json"),
    JSON.stringify({
      mcpServers: {
        offload: { command: "node", args: [HOOK, "recall"], env: { OFFLOAD_GATE_RECALL_DIR: recallDir } },
      },
    }),
  );
  return cwd;
}

describe("Claude Code by its own hooks against the local gate", { skip, concurrency: false }, () => {
  it("replaces a 228,894-character Bash output with a stub naming the recall tool, recalls the original through the recall command, and reports the session from its transcript", async () => {
    const seed = `cc${Date.now().toString(36)}`;
    const original = bigText(seed);
    assert.equal(original.length, CHARS);
    const recallDir = mkdtempSync(join(tmpdir(), "offload-cc-recall-"));
    const cwd = project(recallDir);
    writeFileSync(join(cwd, "build.log"), original);
    const usages = [usage(1_200, 0, 1_000), usage(300, 2_200, 60)];
    let recalled = "";
    const mock = await startMockAnthropic((request, i) => {
      const results = toolResults(request);
      const last = results.at(-1);
      const u = usages[Math.min(i, usages.length - 1)] ?? usage(400 + i, 2_300, 0);
      if (i === 0)
        return {
          content: [{ type: "tool_use", id: "toolu_cc_01", name: "Bash", input: { command: "cat build.log" } }],
          usage: u,
        };
      const id = stubId(results[0]?.text ?? "");
      if (i === 1) return { content: [{ type: "tool_use", id: "toolu_cc_02", name: RECALL, input: { id } }], usage: u };
      recalled += last.text.replace(/\n\[recall: [^\]]*\]$/, "");
      const next = /call again with offset (\d+)\]$/.exec(last.text)?.[1];
      if (next !== undefined)
        return {
          content: [{ type: "tool_use", id: `toolu_cc_${i + 1}`, name: RECALL, input: { id, offset: Number(next) } }],
          usage: usage(400 + i, 2_300, 0),
        };
      return { content: [{ type: "text", text: "done" }], usage: usage(400 + i, 2_300, 0) };
    });
    const configDir = mkdtempSync(join(tmpdir(), "offload-cc-config-"));
    const messages = [];
    try {
      const options = {
        model: MODEL,
        cwd,
        settingSources: ["project"],
        env: {
          ...process.env,
          CLAUDE_CONFIG_DIR: configDir,
          ANTHROPIC_BASE_URL: mock.url,
          ANTHROPIC_API_KEY: "sk-ant-mock",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_AUTOUPDATER: "1",
          OFFLOAD_GATE_URL: baseUrl,
          OFFLOAD_GATE_API_KEY: apiKey,
          OFFLOAD_GATE_RECALL_DIR: recallDir,
        },
        canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
      };
      for await (const message of query({ prompt: "Check the build log.", options })) messages.push(message);
    } finally {
      await mock.close();
    }
    assert.equal(messages.at(-1)?.type, "result");
    const sessionId = messages.find((m) => m.session_id)?.session_id;

    const [seen] = toolResults(mock.requests[1]);
    assert.match(
      seen.text,
      /^\[offloaded: the output of Bash call toolu_cc_01 \(228,894 chars\) is not shown; call mcp__offload__recall_tool_output with \{"id":"toolu_cc_01"\} to read it\]$/,
    );
    const sent = JSON.stringify(mock.requests[1].messages);
    assert.ok(!sent.includes(`${seed} line 000000`), "the next request holds no preview of the output");
    assert.ok(
      mock.requests[0].tools.some((t) => t.name === RECALL),
      "the model is offered the recall tool",
    );
    assert.equal(recalled, original, "the recall command's pages give back the whole original");

    // The session's end reported the decision's outcome and the bill, from the transcript.
    const gate = createGateClient({ baseUrl, apiKey, timeoutMs: 10_000 });
    const sessionDir = join(recallDir, Buffer.from(sessionId, "utf8").toString("hex"));
    // Claude Code may return from query() while its SessionEnd hook still runs: wait (30 s at most)
    // for the hook's own note that it reported, then check what it sent.
    const reportFile = join(sessionDir, "report.json");
    for (let waited = 0; !existsSync(reportFile) && waited < 30_000; waited += 100) await delay(100);
    assert.deepEqual(
      JSON.parse(readFileSync(reportFile, "utf8")),
      { outcomes: true, session: true },
      "the session's end reported its outcomes and its bill, and the gate took both",
    );
    const [decision] = readFileSync(join(sessionDir, "decisions.jsonl"), "utf8").trim().split("\n").map(JSON.parse);
    assert.deepEqual([decision.id, decision.tool, decision.fire], ["toolu_cc_01", "Bash", true]);
    const again = await gate.reportOutcomes([
      {
        decision_id: decision.decision_id,
        turns_after: mock.requests.length - 1,
        cached_turns: mock.requests.length - 1,
        recalled: true,
      },
    ]);
    assert.deepEqual(
      again.results[0],
      { status: "accepted", repeated: true },
      "the outcome the session end sent was exactly this one",
    );
    assert.ok(
      readdirSync(sessionDir).some((f) => f.endsWith(".txt")),
      "the original is in the session's store",
    );

    // The recall command, on its own, answers the original (paged) from the same store.
    assert.equal(await recallAll(HOOK, recallDir, "toolu_cc_01"), original);
  });
});
