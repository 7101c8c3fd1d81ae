// The GitHub Copilot SDK adapter end to end: the SDK's own session loop (the
// Copilot CLI runtime it bundles, @github/copilot-sdk-linux-x64 1.0.14) with
// a BYOK Anthropic provider pointed at a mock Anthropic API on loopback, and
// the local gate that npm run test:clients starts. BYOK needs no GitHub
// login: the CLI runs offline. HOME is a throwaway folder.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { approveAll, CopilotClient } from "@github/copilot-sdk";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { observe, offloadHooks, recallTool } from "offload-gate-client/copilot-sdk";
import { startMockAnthropic, toolResults } from "./mock-anthropic.mjs";
import { apiKey, baseUrl, MODEL, savings, skip, stubId, uniqueTool } from "./live-helpers.mjs";

const usage = (input, read, write, output = 40) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
});
const LARGE_OUTPUT_BYTES = 30_000;

describe("the Copilot SDK adapter's pieces", () => {
  it("reads assistant.usage once, its input tokens less the cache's, and a sub-agent's call on the bill only", async () => {
    const session = new OffloadSession({ gate: createGateClient({ baseUrl: "http://127.0.0.1:9" }), model: MODEL });
    const event = (id, data) => ({ id, type: "assistant.usage", data: { model: MODEL, ...data } });
    observe(session, event("e1", { inputTokens: 170, outputTokens: 10, cacheReadTokens: 50, cacheWriteTokens: 20 }));
    observe(session, event("e1", { inputTokens: 170, outputTokens: 10, cacheReadTokens: 50, cacheWriteTokens: 20 }));
    observe(session, event("e2", { inputTokens: 30, outputTokens: 5, initiator: "sub-agent" }));
    const summary = await session.end();
    assert.equal(summary.turns, 1);
    assert.deepEqual(summary.usage, {
      input_tokens: 130,
      output_tokens: 15,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 20,
    });
  });

  it("pages recall under the large-output size it is given", async () => {
    const store = new Map();
    const session = new OffloadSession({
      gate: { decide: async () => ({ fire: true, reason_code: "fire", decision_id: "d1", fallback: false }) },
      model: MODEL,
      store: { get: async (k) => store.get(k), set: async (k, v) => void store.set(k, v) },
    });
    await session.offload("c1", "fetch", "x".repeat(10_000));
    const page = await recallTool(session, { maxSizeBytes: 4_096 }).handler({ id: "c1" });
    assert.match(page, /^x{3072}\n\[recall: characters 0–3072 of 10000; 6928 left: call again with offset 3072\]$/);
  });
});

describe("the Copilot SDK adapter in the SDK's own loop against the local gate", { skip, concurrency: false }, () => {
  it("stubs a 45,000-character tool result as a normal result, recalls it whole in pages the CLI does not cut, and bills the session", async () => {
    const marker = uniqueTool("cp");
    const toolName = "fetch_report";
    const original = `report ${marker}\n${"lorem ipsum dolor sit amet, consectetur adipiscing elit sed do\n".repeat(720)}`;
    const gate = createGateClient({ baseUrl, apiKey, timeoutMs: 10_000 });
    const session = new OffloadSession({ gate, model: MODEL, sessionId: `cp-${marker}` });
    const usages = [usage(1_200, 0, 9_000), usage(300, 9_000, 200), usage(400, 9_200, 0), usage(500, 9_200, 0)];
    let calls = 0;
    let recalled = "";
    const mock = await startMockAnthropic((request) => {
      if (!request.tools?.length) return { content: [{ type: "text", text: "A report" }], usage: usage(50, 0, 0, 5) };
      const i = calls++;
      const u = usages[Math.min(i, usages.length - 1)];
      const results = toolResults(request);
      const stub = results.map((r) => stubId(r.text)).find(Boolean);
      const last = results.at(-1);
      const recall = (offset) => ({
        content: [
          {
            type: "tool_use",
            id: `toolu_0${i + 1}`,
            name: "recall_tool_output",
            input: offset === undefined ? { id: stub } : { id: stub, offset },
          },
        ],
        usage: u,
      });
      if (i === 0) return { content: [{ type: "tool_use", id: "toolu_01", name: toolName, input: {} }], usage: u };
      if (i === 1) return recall();
      recalled += last.text.replace(/\n\[recall: [^\]]*\]$/, "");
      const next = /call again with offset (\d+)\]$/.exec(last.text)?.[1];
      return next === undefined ? { content: [{ type: "text", text: "done" }], usage: u } : recall(Number(next));
    });
    const client = new CopilotClient({
      useLoggedInUser: false,
      logLevel: "error",
      env: { ...process.env, HOME: mkdtempSync(join(tmpdir(), "offload-copilot-")) },
    });
    try {
      const copilot = await client.createSession({
        model: MODEL,
        provider: { type: "anthropic", baseUrl: mock.url, apiKey: "sk-ant-mock" },
        onPermissionRequest: approveAll,
        hooks: offloadHooks(session),
        largeOutput: { maxSizeBytes: LARGE_OUTPUT_BYTES * 2 },
        tools: [
          {
            name: toolName,
            description: "Fetch the report",
            parameters: { type: "object", properties: {} },
            skipPermission: true,
            handler: async () => original,
          },
          recallTool(session, { maxSizeBytes: LARGE_OUTPUT_BYTES }),
        ],
      });
      copilot.on((event) => observe(session, event));
      await copilot.sendAndWait({ prompt: "Summarize the report." }, 120_000);
      await copilot.disconnect();

      const main = mock.requests.filter((r) => r.tools?.length);
      assert.equal(main.length, 4, "fetch, two recall pages, answer");
      const [seen] = toolResults(main[1]);
      assert.equal(seen.id, "toolu_01");
      assert.match(
        seen.text,
        /^\[offloaded: the output of fetch_report call cp-[0-9a-f-]+ \(45,\d{3} chars\) is not shown/,
      );
      const block = main[1].messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .find((b) => b.type === "tool_result" && b.tool_use_id === "toolu_01");
      assert.notEqual(block.is_error, true, "the model sees a normal tool result, not an error");
      assert.ok(
        !JSON.stringify(main[1].messages).includes("lorem ipsum"),
        "the next request holds the stub, not the output",
      );
      assert.ok(
        !/Output too large/.test(JSON.stringify(main.slice(2).map((r) => r.messages))),
        "no page was saved to a file",
      );
      assert.equal(recalled, original, "the recall pages give back the original, whole");

      const summary = await session.end();
      assert.deepEqual([summary.decisions, summary.stubbed, summary.recalled, summary.turns], [1, 1, 1, 4]);
      assert.deepEqual(summary.usage, {
        input_tokens: 2_400,
        output_tokens: 160,
        cache_read_input_tokens: 27_400,
        cache_creation_input_tokens: 9_200,
      });
      assert.deepEqual(
        [summary.outcomes.ok, summary.outcomes.accepted, summary.session.ok, summary.session.accepted],
        [true, 1, true, 1],
      );
      const report = await savings(toolName);
      assert.ok(report.fired >= 1 && report.outcomes >= 1, "the savings report holds the decision and its outcome");
    } finally {
      await client.stop();
      await mock.close();
    }
  });
});
