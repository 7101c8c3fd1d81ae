// Gemini CLI's AfterTool hook contract, against the local gate: the hook
// command gets the input Gemini CLI sends (the shape of
// `@google/gemini-cli-core` 0.61.0's fireAfterToolEvent: the base fields, then
// tool_name, tool_input and tool_response { llmContent, returnDisplay, error }),
// recorded here rather than run: the CLI is not installed for the tests. Its
// answer is a tail call (`hookSpecificOutput.tailToolCallRequest`) to the
// recall tool for an entry that holds the stub, whose result replaces the
// original's as a normal result; the recall command then answers the stub
// and the original, in pages under the CLI's 40,000-character cut.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
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

/** Calls the recall command's tool for each id in turn, as Gemini CLI's model would: `next(text)` names the next id. */
async function recallChain(dir, firstId, next) {
  const client = new Client({ name: "recall-test", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [HOOK, "recall"],
      env: { ...process.env, OFFLOAD_GATE_RECALL_DIR: dir },
    }),
  );
  try {
    const texts = [];
    for (let id = firstId; id !== undefined && texts.length < 20; id = next(texts.at(-1))) {
      const result = await client.callTool({ name: "recall_tool_output", arguments: { id } });
      if (result.isError) throw new Error(result.content[0].text);
      texts.push(result.content[0].text);
    }
    return texts;
  } finally {
    await client.close();
  }
}

describe("Gemini CLI's AfterTool hook against the local gate", { skip }, () => {
  it("answers a 160,000-character shell result with a tail call to the recall tool that returns the stub, and the recall command gives the original back in pages under 40,000 characters", async () => {
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
    assert.deepEqual([run.status, run.stderr], [0, ""], "a hook that did its work writes nothing to stderr");
    const answer = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(answer), ["hookSpecificOutput"], "no decision: the result is not blocked");
    const tail = answer.hookSpecificOutput.tailToolCallRequest;
    assert.equal(answer.hookSpecificOutput.hookEventName, "AfterTool");
    assert.equal(tail.name, "mcp_offload_recall_tool_output");
    // The tail call's result, the model's normal tool result: the stub, naming the pages.
    const [stub] = await recallChain(recallDir, tail.args.id, () => undefined);
    assert.match(
      stub,
      /^\[offloaded: the output of run_shell_command call gcli-[\w-]+ \(160,000 chars\) is not shown; call mcp_offload_recall_tool_output with \{"id":"gcli-[\w-]+"\} to read it\] It comes back in 6 pages of at most 30,000 characters; each names the next\.$/,
    );
    const pages = await recallChain(
      recallDir,
      stubId(stub),
      (page) => /with \{"id":"([^"]+)"\} for the next\]$/.exec(page)?.[1],
    );
    assert.equal(pages.length, 6);
    assert.ok(
      pages.every((page) => page.length < 40_000),
      "every page under the CLI's 40,000-character cut",
    );
    assert.equal(pages.map((page) => page.replace(/\n\[recall: [^\]]*\]$/, "")).join(""), original);
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
    for (const run of [down, small, broken]) assert.deepEqual([run.status, run.stdout, run.stderr], [0, "", ""]);
  });
});
