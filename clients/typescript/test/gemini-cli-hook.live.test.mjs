// Gemini CLI's AfterTool hook contract, against the local gate: the hook
// command gets the input Gemini CLI sends (the shape of
// `@google/gemini-cli-core` 0.61.0's fireAfterToolEvent: the base fields, then
// tool_name, tool_input and tool_response { llmContent, returnDisplay, error }),
// recorded here rather than run: the CLI is not installed for the tests. Its
// answer must be the one field that replaces the result the model sees there,
// `decision: "deny"` with the stub as `reason`; the recall command then
// answers the original from the same store.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { recallAll } from "./recall-client.mjs";
import { apiKey, baseUrl, bigOutput, skip, stubId } from "./live-helpers.mjs";

const HOOK = fileURLToPath(new URL("../dist/hook.js", import.meta.url));

/** An AfterTool input as Gemini CLI 0.61 builds it, for a shell command's result. */
function afterToolInput(sessionId, transcriptPath, output) {
  return {
    session_id: sessionId,
    transcript_path: transcriptPath,
    cwd: tmpdir(),
    hook_event_name: "AfterTool",
    timestamp: new Date().toISOString(),
    tool_name: "run_shell_command",
    tool_input: { command: "cat build.log", description: "read the build log" },
    tool_response: { llmContent: output, returnDisplay: output, error: undefined },
  };
}

const hook = (input, env) =>
  spawnSync(process.execPath, [HOOK, "gemini-cli"], {
    input: JSON.stringify(input),
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, OFFLOAD_GATE_URL: baseUrl, OFFLOAD_GATE_API_KEY: apiKey, ...env },
  });

describe("Gemini CLI's AfterTool hook against the local gate", { skip }, () => {
  it("answers a 160,000-character shell result with decision deny and the stub as its reason, and the recall command returns the original", async () => {
    const recallDir = mkdtempSync(join(tmpdir(), "offload-gemini-"));
    const original = bigOutput("gemini");
    // Gemini CLI's session file: its last model message names the model and its tokens.
    const transcript = join(recallDir, "..", `gemini-session-${Date.now()}.json`);
    writeFileSync(
      transcript,
      JSON.stringify({
        sessionId: "g1",
        messages: [
          { type: "user", content: "read the log" },
          { type: "gemini", model: "claude-opus-4-6", tokens: { input: 1_200, output: 40, cached: 0 } },
        ],
      }),
    );
    const run = hook(afterToolInput(`gemini-${Date.now()}`, transcript, original), {
      OFFLOAD_GATE_RECALL_DIR: recallDir,
    });
    assert.equal(run.status, 0, run.stderr);
    const answer = JSON.parse(run.stdout);
    assert.equal(answer.decision, "deny");
    assert.match(
      answer.reason,
      /^\[offloaded: the output of run_shell_command call gcli-[\w-]+ \(160,000 chars\) is not shown; call mcp_offload_recall_tool_output with \{"id":"gcli-[\w-]+"\} to read it\]$/,
    );
    const id = stubId(answer.reason);
    assert.equal(await recallAll(HOOK, recallDir, id), original);
  });

  it("leaves the result as it is (no output, exit 0) when the gate is down, a small result, or an input it cannot read", () => {
    const recallDir = mkdtempSync(join(tmpdir(), "offload-gemini-"));
    const env = { OFFLOAD_GATE_RECALL_DIR: recallDir, OFFLOAD_GATE_MODEL: "claude-opus-4-6" };
    const down = hook(afterToolInput("g-down", undefined, bigOutput("down")), {
      ...env,
      OFFLOAD_GATE_URL: "http://127.0.0.1:9",
    });
    const small = hook(afterToolInput("g-small", undefined, "ok"), env);
    const broken = spawnSync(process.execPath, [HOOK, "gemini-cli"], {
      input: "{not json",
      encoding: "utf8",
      env: { ...process.env, ...env },
    });
    for (const run of [down, small, broken]) assert.deepEqual([run.status, run.stdout], [0, ""]);
  });
});
