// The Gemini CLI hook's session end, without a gate: it reads the session
// Gemini CLI recorded (gemini-cli-core's ChatRecordingService JSONL) with
// replay's parser and reports each decision the AfterTool hook recorded, tied
// to its output by the stub's id or by tool and order (its input names no
// call id), and the session's bill from the recorded tokens.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { geminiCliHook } from "../dist/hook-gemini-cli.js";
import { HookStore } from "../dist/hook-store.js";

const at = (s) => new Date(Date.parse("2026-11-01T10:00:00Z") + s * 1000).toISOString();
const shell = (id, output) => ({
  id,
  name: "run_shell_command",
  args: { command: "cat build.log" },
  result: [{ functionResponse: { id, name: "run_shell_command", response: { output } } }],
  status: "success",
  timestamp: at(1),
});

/** A recorded session: two shell results (the first stubbed by the hook, the second passed), then an answer. */
function recordedSession(stubId) {
  const tokens = (input, cached) => ({ input, output: 20, cached, thoughts: 0, tool: 0, total: input + 20 });
  const lines = [
    { sessionId: "gsess-1", projectHash: "p", startTime: at(0), lastUpdated: at(9), kind: "main" },
    { id: "u0", timestamp: at(0), type: "user", content: [{ text: "read the logs" }] },
    {
      id: "g0",
      timestamp: at(1),
      type: "gemini",
      content: "",
      model: "gemini-2.5-pro",
      tokens: tokens(3_000, 0),
      toolCalls: [shell("c0", `Tool result blocked: [offloaded: 40,000 chars; recall id ${stubId}]`)],
    },
    {
      id: "g1",
      timestamp: at(2),
      type: "gemini",
      content: "",
      model: "gemini-2.5-pro",
      tokens: tokens(3_400, 3_000),
      toolCalls: [shell("c1", "ok: 12 lines")],
    },
    {
      id: "g2",
      timestamp: at(3),
      type: "gemini",
      content: "Both logs are clean.",
      model: "gemini-2.5-pro",
      tokens: tokens(3_600, 3_400),
    },
  ];
  return lines.map((l) => JSON.stringify(l)).join("\n");
}

describe("offload-gate-hook gemini-cli at SessionEnd", () => {
  it("reports each recorded decision's outcome and the session's bill from the recorded session", async () => {
    const root = mkdtempSync(join(tmpdir(), "offload-gcli-end-"));
    const transcript = join(root, "session-1.jsonl");
    writeFileSync(transcript, recordedSession("gcli-aaaa"));
    const store = new HookStore({ root, maxBytes: 1 << 20, ttlMs: 3_600_000 }, "gsess-1");
    await store.record({ id: "gcli-aaaa", tool: "run_shell_command", decision_id: "d-fired", fire: true });
    await store.record({ id: "gcli-bbbb", tool: "run_shell_command", decision_id: "d-kept", fire: false });
    const sent = { outcomes: [], sessions: [] };
    const ok = (n) => ({
      ok: true,
      accepted: n,
      unknown_decision: 0,
      results: Array.from({ length: n }, () => ({ status: "accepted" })),
    });
    const gate = {
      reportOutcomes: async (items) => (sent.outcomes.push(...items), ok(items.length)),
      reportSessions: async (items) => (sent.sessions.push(...items), ok(items.length)),
    };
    const errors = [];
    const out = await geminiCliHook(
      { hook_event_name: "SessionEnd", session_id: "gsess-1", transcript_path: transcript, reason: "exit" },
      { env: { OFFLOAD_GATE_RECALL_DIR: root }, gate, onError: (e) => errors.push(e) },
    );
    assert.equal(out, "");
    assert.deepEqual(errors, []);
    const byId = Object.fromEntries(sent.outcomes.map((o) => [o.decision_id, o]));
    assert.deepEqual(Object.keys(byId).sort(), ["d-fired", "d-kept"]);
    // The stubbed output entered at the second call: one more call came after it; the kept one at the third.
    assert.equal(byId["d-fired"].turns_after, 2);
    assert.equal(byId["d-kept"].turns_after, 1);
    assert.equal(sent.sessions.length, 1);
    assert.equal(sent.sessions[0].session_id, "gsess-1");
    assert.equal(sent.sessions[0].model_name, "gemini-2.5-pro");
    assert.equal(sent.sessions[0].turns, 3);
    assert.equal(sent.sessions[0].usage.cache_read_input_tokens, 6_400);
    const report = JSON.parse(readFileSync(join(root, Buffer.from("gsess-1").toString("hex"), "report.json"), "utf8"));
    assert.deepEqual(report, { outcomes: true, session: true });
  });

  it("prints nothing and reports nothing when the recorded session cannot be read", async () => {
    const root = mkdtempSync(join(tmpdir(), "offload-gcli-end-"));
    const errors = [];
    const gate = {
      reportOutcomes: async () => assert.fail("no outcome to send"),
      reportSessions: async () => assert.fail("no bill to send"),
    };
    const out = await geminiCliHook(
      { hook_event_name: "SessionEnd", session_id: "gsess-2", transcript_path: join(root, "missing.jsonl") },
      { env: { OFFLOAD_GATE_RECALL_DIR: root }, gate, onError: (e) => errors.push(e) },
    );
    assert.equal(out, "");
    assert.equal(errors.length, 1);
  });
});
