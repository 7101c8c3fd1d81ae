// Cache diagnostics asked for where an adapter builds the request: the AI
// SDK's Anthropic provider (through anthropicDiagnosticsFetch) and OpenAI
// provider (promptCacheOptions.comparisonResponseId from the middleware), and
// the OpenAI Agents SDK's Responses model (through openaiDiagnosticsFetch),
// each in its framework's own loop against a mock API on loopback. The gate
// is a recording stand-in: what is checked is what the session reports.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, tool as agentTool } from "@openai/agents";
import { generateText, isStepCount, jsonSchema, streamText, tool, wrapLanguageModel } from "ai";
import OpenAI from "openai";
import { z } from "zod";
import { OffloadSession } from "offload-gate-client";
import { offloadGateMiddleware } from "offload-gate-client/ai-sdk";
import {
  ANTHROPIC_DIAGNOSTICS_BETA,
  anthropicDiagnosticsFetch,
  fromOpenAI,
  openaiDiagnosticsFetch,
} from "offload-gate-client/cache-diagnostics";
import { offloadInputFilter } from "offload-gate-client/openai-agents";
import { startMockAnthropic } from "./mock-anthropic.mjs";
import { functionCall, message, responsesUsage, startMockResponses } from "./mock-responses.mjs";

process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";

/** A gate that never fires and keeps the bills it is sent. */
function recordingGate() {
  const bills = [];
  const tally = (results) => ({
    ok: true,
    results,
    accepted: results.length,
    unknown_decision: 0,
    conflict: 0,
    invalid: 0,
  });
  return {
    bills,
    decide: async () => ({ fire: false, reason_code: "no_saving", decision_id: "dec_1", fallback: false }),
    decideBatch: async (items) => items.map(() => ({ fire: false, reason_code: "no_saving", fallback: false })),
    plan: async () => ({ stub: [], reason_code: "no_saving", fallback: false }),
    reportOutcomes: async (items) => tally(items.map(() => ({ status: "accepted" }))),
    reportSessions: async (items) => (bills.push(...items), tally(items.map(() => ({ status: "accepted" })))),
  };
}

const anthropicUsage = (input, read) => ({
  input_tokens: input,
  output_tokens: 10,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: 0,
});
const miss = (tokens) => ({ cache_miss_reason: { type: "messages_changed", cache_missed_input_tokens: tokens } });
const lookup = tool({
  description: "look a thing up",
  inputSchema: jsonSchema({ type: "object", properties: {} }),
  execute: async () => "a short answer",
});

describe("fromOpenAI", () => {
  it("reads a cache_miss as its reason and missed tokens, and anything else as no divergence", () => {
    assert.deepEqual(fromOpenAI({ type: "cache_miss", reason: "tools_changed", cache_missed_tokens: 4_096 }), {
      cache_miss_reason: { type: "tools_changed", cache_missed_input_tokens: 4_096 },
    });
    assert.deepEqual(fromOpenAI({ type: "cache_hit" }), { cache_miss_reason: null });
    assert.equal(fromOpenAI(null), undefined);
  });
});

describe("cache diagnostics in the frameworks' own loops", () => {
  for (const streaming of [false, true]) {
    it(`asks Anthropic through the AI SDK's provider with the previous message id (${streaming ? "streamed" : "generated"}), and bills the diagnosed misses`, async () => {
      const gate = recordingGate();
      const session = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: `diag-a-${streaming}` });
      const headers = [];
      const mock = await startMockAnthropic((request, i, h) => {
        headers.push(h["anthropic-beta"]);
        const diagnostics = i === 0 ? null : i === 1 ? miss(1_500) : { cache_miss_reason: null };
        if (i < 2)
          return {
            content: [{ type: "tool_use", id: `toolu_${i}`, name: "lookup", input: {} }],
            usage: anthropicUsage(500, i * 1_000),
            diagnostics,
          };
        return { content: [{ type: "text", text: "done" }], usage: anthropicUsage(300, 2_000), diagnostics };
      });
      try {
        const anthropic = createAnthropic({
          baseURL: `${mock.url}/v1`,
          apiKey: "sk-ant-mock",
          fetch: anthropicDiagnosticsFetch(session),
        });
        const model = wrapLanguageModel({
          model: anthropic("claude-opus-4-6"),
          middleware: offloadGateMiddleware(session),
        });
        const args = { model, tools: { lookup }, stopWhen: isStepCount(5), prompt: "look it up" };
        if (streaming) await streamText(args).consumeStream();
        else await generateText(args);
        assert.deepEqual(
          mock.requests.map((r) => r.diagnostics),
          [{ previous_message_id: null }, { previous_message_id: "msg_mock_1" }, { previous_message_id: "msg_mock_2" }],
        );
        assert.ok(
          headers.every((h) => h.split(",").includes(ANTHROPIC_DIAGNOSTICS_BETA)),
          "the beta header on every call",
        );
        await session.end();
        assert.deepEqual(gate.bills[0].cache_misses, { after_gate_rewrite: 0, other: 1_500 });
        assert.equal(gate.bills[0].covariate, 1_500, "the measured misses are the covariate");
      } finally {
        await mock.close();
      }
    });
  }

  it("asks OpenAI through the AI SDK's provider with the previous response's id, for GPT-5.6 and later only", async () => {
    for (const [modelId, asks] of [
      ["gpt-5.6", true],
      ["gpt-5", false],
    ]) {
      const gate = recordingGate();
      const session = new OffloadSession({ gate, model: modelId, sessionId: `diag-o-${modelId}` });
      const mock = await startMockResponses((body, n) => ({
        output: n === 1 ? [functionCall("call_1", "lookup", {})] : [message("done")],
        usage: responsesUsage(400, n === 1 ? 0 : 1_000),
        ...(asks
          ? {
              diagnostics:
                n === 1
                  ? { type: "cache_hit" }
                  : { type: "cache_miss", reason: "input_changed", cache_missed_tokens: 700 },
            }
          : {}),
      }));
      try {
        const openai = createOpenAI({ baseURL: mock.baseUrl, apiKey: "sk-mock" });
        const model = wrapLanguageModel({ model: openai(modelId), middleware: offloadGateMiddleware(session) });
        await generateText({ model, tools: { lookup }, stopWhen: isStepCount(5), prompt: "look it up" });
        const asked = mock.requests.map((r) => r.prompt_cache_options?.comparison_response_id);
        assert.deepEqual(asked, asks ? [undefined, "resp_1"] : [undefined, undefined]);
        await session.end();
        assert.deepEqual(gate.bills[0].cache_misses, asks ? { after_gate_rewrite: 0, other: 700 } : undefined);
      } finally {
        await mock.close();
      }
    }
  });

  it("asks OpenAI through the OpenAI Agents SDK's Responses model, and puts each answer on its call", async () => {
    const gate = recordingGate();
    const session = new OffloadSession({ gate, model: "gpt-5.6", sessionId: "diag-agents" });
    const mock = await startMockResponses((body, n) => ({
      output: n === 1 ? [functionCall("call_1", "lookup", {})] : [message("done")],
      usage: responsesUsage(400, n === 1 ? 0 : 1_000),
      diagnostics:
        n === 1 ? { type: "cache_hit" } : { type: "cache_miss", reason: "input_changed", cache_missed_tokens: 900 },
    }));
    try {
      setDefaultOpenAIClient(
        new OpenAI({ baseURL: mock.baseUrl, apiKey: "sk-mock", fetch: openaiDiagnosticsFetch(session) }),
      );
      setOpenAIAPI("responses");
      const agent = new Agent({
        name: "diagnosed",
        model: "gpt-5.6",
        tools: [
          agentTool({ name: "lookup", description: "look", parameters: z.object({}), execute: async () => "short" }),
        ],
      });
      await run(agent, "look it up", { callModelInputFilter: offloadInputFilter(session) });
      assert.deepEqual(
        mock.requests.map((r) => r.prompt_cache_options?.comparison_response_id),
        [undefined, "resp_1"],
      );
      const summary = await session.end();
      assert.equal(summary.turns, 2);
      assert.deepEqual(gate.bills[0].cache_misses, { after_gate_rewrite: 0, other: 900 });
    } finally {
      await mock.close();
    }
  });
});
