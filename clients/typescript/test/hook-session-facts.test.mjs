// What the hooks tell the gate of the session an output enters (the worker's
// docs/design/economics.md §13): the agent, the call index (model calls the
// transcript's read tail records before the output) and, for Claude Code,
// whether the session is a subagent's (its records are marked isSidechain).
// A recording gate stands in for the worker; the transcripts are written here.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { claudeCodeHook, lastCall, sessionFacts } from "../dist/hook-claude-code.js";
import { geminiCliHook } from "../dist/hook-gemini-cli.js";

function recordingGate() {
  const requests = [];
  return {
    requests,
    decide: async (request) => (
      requests.push(request), { fire: false, reason_code: "net_not_positive", decision_id: "dec_1", fallback: false }
    ),
    decideBatch: async (items) => items.map(() => ({ fire: false, reason_code: "net_not_positive", fallback: false })),
    plan: async () => ({ stub: [], reason_code: "no_saving", fallback: false }),
    reportOutcomes: async () => ({ ok: true, results: [], accepted: 0, unknown_decision: 0, conflict: 0, invalid: 0 }),
    reportSessions: async () => ({ ok: true, results: [], accepted: 0, unknown_decision: 0, conflict: 0, invalid: 0 }),
  };
}

const usage = { input_tokens: 3, output_tokens: 20, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 400 };
const assistant = (id, sidechain = false) => ({
  type: "assistant",
  isSidechain: sidechain,
  message: { id, model: "claude-opus-4-6", usage, content: [{ type: "text", text: "…" }] },
});

/** A Claude Code transcript: three calls, the second written as two records (one per content block). */
function claudeTranscript(sidechain) {
  const lines = [
    { type: "user", message: { content: "go" } },
    assistant("msg_1", sidechain),
    { type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] } },
    assistant("msg_2", sidechain),
    assistant("msg_2", sidechain),
    { type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t2", content: "y" }] } },
    assistant("msg_3", sidechain),
  ];
  const dir = mkdtempSync(join(tmpdir(), "og-facts-"));
  const path = join(dir, "s.jsonl");
  writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return { dir, path };
}

describe("the Claude Code hook's session facts", () => {
  it("counts each model call once however many records it wrote, and reads a subagent's sidechain mark", async () => {
    const main = await lastCall(claudeTranscript(false).path);
    assert.equal(main.calls, 3);
    assert.equal(main.sidechain, false);
    const sub = await lastCall(claudeTranscript(true).path);
    assert.deepEqual(sessionFacts(sub), { agent: "claude-code", call_index: 3, subagent: true });
  });

  it("sends them with the PostToolUse decision", async () => {
    const { dir, path } = claudeTranscript(true);
    const gate = recordingGate();
    await claudeCodeHook(
      {
        hook_event_name: "PostToolUse",
        session_id: "s-facts",
        transcript_path: path,
        tool_name: "Bash",
        tool_use_id: "toolu_9",
        tool_response: { stdout: "z".repeat(40_000), stderr: "", interrupted: false },
      },
      { env: { OFFLOAD_GATE_RECALL_DIR: join(dir, "recall") }, gate },
    );
    assert.equal(gate.requests.length, 1);
    assert.equal(gate.requests[0].agent, "claude-code");
    assert.equal(gate.requests[0].call_index, 3);
    assert.equal(gate.requests[0].subagent, true);
  });
});

describe("the Gemini CLI hook's session facts", () => {
  it("sends its agent and the model messages its transcript records as the call index", async () => {
    const dir = mkdtempSync(join(tmpdir(), "og-facts-g-"));
    const path = join(dir, "g.jsonl");
    const message = (id) => ({
      id,
      type: "gemini",
      content: "",
      model: "gemini-2.5-pro",
      tokens: { input: 900, output: 20 },
    });
    writeFileSync(
      path,
      [{ sessionId: "g", kind: "main" }, message("g0"), message("g1")].map((l) => JSON.stringify(l)).join("\n"),
    );
    const gate = recordingGate();
    await geminiCliHook(
      {
        hook_event_name: "AfterTool",
        session_id: "g-facts",
        transcript_path: path,
        tool_name: "run_shell_command",
        tool_response: { llmContent: "w".repeat(40_000) },
      },
      { env: { OFFLOAD_GATE_RECALL_DIR: join(dir, "recall") }, gate },
    );
    assert.equal(gate.requests.length, 1);
    assert.equal(gate.requests[0].agent, "gemini-cli");
    assert.equal(gate.requests[0].call_index, 2);
  });
});
