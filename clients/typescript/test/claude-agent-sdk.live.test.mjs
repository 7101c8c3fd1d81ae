// The Claude Agent SDK adapter end to end: the SDK's own agent loop (its
// bundled Claude Code) against a mock Anthropic API on loopback
// (ANTHROPIC_BASE_URL) and the local gate that npm run test:clients starts.
// Tools are allowed through canUseTool: Claude Code refuses bypassPermissions
// as root.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { observe, offloadHooks, recallPage, recallServer } from "offload-gate-client/claude-agent-sdk";
import { startMockAnthropic, toolResults } from "./mock-anthropic.mjs";
import { apiKey, baseUrl, bigOutput, MODEL, savings, skip, stubId, uniqueTool } from "./live-helpers.mjs";

const RECALL = "mcp__offload__recall_tool_output";
const usage = (input, read, write5m, write1h, output = 40) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write5m + write1h,
  cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
});

/** Runs the SDK's loop to its result message, feeding every message to the adapter. */
async function run(session, mock, cwd, env = {}) {
  const options = {
    model: MODEL,
    cwd,
    env: {
      ...process.env,
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: "sk-ant-mock",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      ...env,
    },
    hooks: offloadHooks(session),
    mcpServers: { offload: recallServer(session) },
    canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }),
  };
  const messages = [];
  for await (const message of query({ prompt: "Summarize the report.", options })) {
    messages.push(message);
    await observe(session, message);
  }
  return messages;
}

describe("recallPage", () => {
  it("answers a short original whole, and a long one in pages that name the next offset", () => {
    assert.equal(recallPage("abc"), "abc");
    assert.equal(recallPage("abcdef", 0, 4), "abcd\n[recall: characters 0–4 of 6; 2 left: call again with offset 4]");
    assert.equal(recallPage("abcdef", 4, 4), "ef\n[recall: characters 4–6 of 6; the end]");
  });
});

describe("the Claude Agent SDK adapter against the local gate", { skip, concurrency: false }, () => {
  const gate = createGateClient({ baseUrl, apiKey, timeoutMs: 10_000 });

  it("stubs a 40k-token Bash result Claude Code persisted, recalls the whole original in pages, and bills 1-hour writes", async () => {
    const toolName = "Bash";
    const marker = uniqueTool("cas");
    const cwd = mkdtempSync(join(tmpdir(), "offload-cas-"));
    const original = bigOutput(marker);
    writeFileSync(join(cwd, "report.txt"), original);
    const session = new OffloadSession({ gate, model: MODEL, recallToolName: RECALL, sessionId: `cas-${marker}` });
    const usages = [
      usage(1_200, 0, 1_000, 0),
      usage(300, 2_200, 0, 60),
      usage(400, 2_300, 0, 0),
      usage(500, 2_400, 0, 0),
      usage(600, 2_500, 0, 0),
      usage(700, 2_600, 0, 0),
    ];
    let recalledText = "";
    const mock = await startMockAnthropic((request, i) => {
      const results = toolResults(request);
      const stub = results.map((r) => stubId(r.text)).find(Boolean);
      const last = results.at(-1);
      const next = last && /call again with offset (\d+)\]/.exec(last.text)?.[1];
      const u = usages[Math.min(i, usages.length - 1)];
      if (i === 0)
        return {
          content: [
            {
              type: "tool_use",
              id: "toolu_01",
              name: "Bash",
              input: { command: "cat report.txt", description: "read the report" },
            },
          ],
          usage: u,
        };
      if (i === 1)
        return { content: [{ type: "tool_use", id: "toolu_02", name: RECALL, input: { id: stub } }], usage: u };
      recalledText += last.text.replace(/\n\[recall: [^\]]*\]$/, "");
      if (next !== undefined)
        return {
          content: [
            { type: "tool_use", id: `toolu_0${i + 1}`, name: RECALL, input: { id: stub, offset: Number(next) } },
          ],
          usage: u,
        };
      return { content: [{ type: "text", text: "done" }], usage: u };
    });
    try {
      const messages = await run(session, mock, cwd);
      const result = messages.at(-1);
      assert.equal(result.type, "result");
      assert.ok(session.ended, "the result message ended the session");
      assert.equal(mock.requests.length, 2 + 4, "read, four recall pages of 40,000 characters, answer");
      const [seen] = toolResults(mock.requests[1]);
      assert.match(
        seen.text,
        /^\[offloaded: the output of Bash call toolu_01 \(160,\d{3} chars\) is not shown; call mcp__offload__recall_tool_output/,
      );
      assert.ok(
        !JSON.stringify(mock.requests[1].messages).includes("lorem ipsum"),
        "the next request holds the stub, not the output",
      );
      assert.ok(recalledText === original, "the recall pages give back the persisted original, whole");
      assert.ok(
        toolResults(mock.requests[2]).at(-1).text.startsWith(`report ${marker}`),
        "the recall's own output is never stubbed",
      );

      const summary = await session.end();
      assert.deepEqual([summary.decisions, summary.stubbed, summary.recalled, summary.turns], [1, 1, 1, 6]);
      assert.deepEqual(
        [summary.outcomes.ok, summary.outcomes.accepted, summary.session.ok, summary.session.accepted],
        [true, 1, true, 1],
      );
      const report = await savings(toolName);
      const row = report.holdout.tools.find((t) => t.tool_name === toolName);
      assert.ok(
        row.sessions >= 1 && report.fired >= 1 && report.outcomes >= 1,
        "the savings report holds the decision, its outcome and the bill",
      );
      assert.ok(
        mock.requests[0].tools.some((t) => t.name === RECALL),
        "alwaysLoad keeps the recall tool out of tool search",
      );
      // The six calls' usage summed, the 60 one-hour writes split out: the report the session sent.
      const usageSent = {
        input_tokens: 3_700,
        output_tokens: 240,
        cache_read_input_tokens: 12_000,
        cache_creation_input_tokens: 1_060,
        cache_creation: { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 60 },
      };
      // Its covariate: every call after the gate's read the cache, so no miss multiplies the history.
      const again = await gate.reportSessions([
        { session_id: `cas-${marker}`, model_name: MODEL, turns: 6, usage: usageSent, covariate: 0 },
      ]);
      assert.deepEqual(
        again.results[0],
        { status: "accepted", repeated: true },
        "the session's own bill was exactly this one",
      );
    } finally {
      await mock.close();
    }
  });
});
