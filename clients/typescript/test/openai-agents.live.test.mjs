// The OpenAI Agents SDK adapter end to end: the SDK's own Runner driving a
// scripted Model (the SDK's custom-model interface), and the SDK's own `run`
// with its OpenAI provider against a mock Responses API on loopback, both
// against the local gate that npm run test:clients starts.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { Agent, Runner, run, setDefaultOpenAIClient, setTracingDisabled, tool, Usage } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { offloadInputFilter, recallFunctionTool } from "offload-gate-client/openai-agents";
import { apiKey, baseUrl, bigOutput, MODEL, savings, skip, stubId, uniqueTool } from "./live-helpers.mjs";
import { functionCall, message, responsesUsage, startMockResponses } from "./mock-responses.mjs";

// Nothing may leave the machine: no trace export either.
process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";

const usage = (input, cached, output = 40) =>
  new Usage({
    requests: 1,
    inputTokens: input + cached,
    outputTokens: output,
    totalTokens: input + cached + output,
    inputTokensDetails: { cached_tokens: cached },
  });
/** A function-call output's text: the SDK keeps a tool's string as a text part. */
const textOf = (output) => (typeof output === "string" ? output : output?.text);
const results = (input) => (Array.isArray(input) ? input : []).filter((item) => item.type === "function_call_result");

/** Calls `toolName`, then recalls each stub it sees, then answers; keeps every input it was sent. */
class ScriptedModel {
  inputs = [];
  constructor(toolName, usages) {
    this.toolName = toolName;
    this.usages = usages;
  }
  async getResponse(request) {
    const n = this.inputs.push(structuredClone(request.input));
    const done = results(request.input);
    const recalled = new Set(done.filter((r) => r.name === "recall_tool_output").map((r) => r.callId));
    const stub = done.find(
      (r) =>
        r.name === this.toolName && stubId(textOf(r.output)) && !recalled.has(`recall_${stubId(textOf(r.output))}`),
    );
    const call = (callId, name, args) => ({
      type: "function_call",
      callId,
      name,
      arguments: JSON.stringify(args),
      status: "completed",
    });
    const output =
      n === 1
        ? [call("call_1", this.toolName, { part: 1 })]
        : stub
          ? [call(`recall_${stubId(textOf(stub.output))}`, "recall_tool_output", { id: stubId(textOf(stub.output)) })]
          : [
              {
                type: "message",
                role: "assistant",
                status: "completed",
                content: [{ type: "output_text", text: "done" }],
              },
            ];
    return { usage: this.usages[Math.min(n - 1, this.usages.length - 1)], output, responseId: `resp_${n}` };
  }
  // biome-ignore lint/correctness/useYield: the SDK calls this only to stream, which this test never asks for
  async *getStreamedResponse() {
    throw new Error("this test does not stream");
  }
}

describe("the OpenAI Agents SDK adapter against the local gate", { skip, concurrency: false }, () => {
  const gate = createGateClient({ baseUrl, apiKey, timeoutMs: 10_000 });

  it("stubs a 40k-token function output in every later model input, recalls it, and bills cached input as cache reads", async () => {
    const toolName = uniqueTool("fetch_report");
    const original = bigOutput(toolName);
    const session = new OffloadSession({ gate, model: MODEL });
    const model = new ScriptedModel(toolName, [usage(1_200, 0), usage(300, 2_200), usage(41_000, 2_300)]);
    const fetchReport = tool({
      name: toolName,
      description: "fetch the report",
      parameters: z.object({ part: z.number() }),
      execute: async () => original,
    });
    const agent = new Agent({
      name: "reader",
      instructions: "Summarize the report.",
      model,
      tools: [fetchReport, recallFunctionTool(session)],
    });
    const runner = new Runner({ callModelInputFilter: offloadInputFilter(session), tracingDisabled: true });

    const result = await runner.run(agent, "Summarize the report.");
    assert.ok(session.ended, "the run's end ended the session: no session.end() in the user's code");
    const summary = await session.end(); // the report the run's end already sent

    assert.equal(result.finalOutput, "done");
    assert.equal(model.inputs.length, 3);
    const [seen] = results(model.inputs[1]);
    assert.match(textOf(seen.output), /^\[offloaded: the output of fetch_report_\w+ call call_1 \(160,000 chars\)/);
    assert.ok(!JSON.stringify(model.inputs[1]).includes("lorem ipsum"), "the second call's input holds the stub");
    const later = results(model.inputs[2]);
    assert.deepEqual(
      later.find((r) => r.callId === "call_1").output,
      seen.output,
      "the same stub, byte for byte, on every later call",
    );
    assert.ok(
      textOf(later.find((r) => r.name === "recall_tool_output").output) === original,
      "the recall answered the original, never stubbed",
    );

    assert.deepEqual([summary.decisions, summary.stubbed, summary.recalled, summary.turns], [1, 1, 1, 3]);
    assert.deepEqual(summary.usage, {
      input_tokens: 42_500,
      output_tokens: 120,
      cache_read_input_tokens: 4_500,
      cache_creation_input_tokens: 0,
    });
    assert.deepEqual([summary.outcomes.accepted, summary.session.accepted], [1, 1]);
    const report = await savings(toolName);
    assert.deepEqual([report.decisions, report.fired, report.outcomes], [1, 1, 1]);
    assert.equal(report.recall.realized, 1);
    const row = report.holdout.tools.find((t) => t.tool_name === toolName);
    // 42,500 input at $5, 120 output at $25, 4,500 cache reads at $0.50 per million.
    const bill = (42_500 * 5 + 120 * 25 + 4_500 * 0.5) / 1e6;
    assert.ok(
      Math.abs(row.information.treated_mean_cost_usd - bill) < 1e-9,
      `${row.information.treated_mean_cost_usd} vs ${bill}`,
    );
  });

  it("counts each model call as it completes: turns_after is the calls after the decision and context_tokens the history before it, with no observeRun or end()", async () => {
    const toolName = uniqueTool("fetch_report");
    const original = bigOutput(toolName);
    const sent = { decide: [], outcomes: [], sessions: [] };
    const recording = createGateClient({
      baseUrl,
      apiKey,
      timeoutMs: 10_000,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const key = { "/v1/gate": "decide", "/v1/outcomes": "outcomes", "/v1/sessions": "sessions" }[
          new URL(request.url).pathname
        ];
        if (key) sent[key].push(JSON.parse(await request.clone().text()));
        return fetch(request);
      },
    });
    // Call 1 asks for the report, call 2 sees its stub and recalls it, call 3 answers.
    const calls = [responsesUsage(1_200, 0), responsesUsage(300, 2_200), responsesUsage(41_000, 2_300)];
    const mock = await startMockResponses((body, n) => {
      const text = JSON.stringify(body.input);
      const id = stubId(text.replaceAll('\\"', '"'));
      const output =
        n === 1
          ? [functionCall("call_1", toolName, { part: 1 })]
          : n === 2 && id
            ? [functionCall(`recall_${id}`, "recall_tool_output", { id })]
            : [message("done")];
      return { output, usage: calls[n - 1] };
    });
    after(() => mock.close());
    setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-test-not-a-key", baseURL: mock.baseUrl, maxRetries: 0 }));
    setTracingDisabled(true);

    // The user's code: a session, the recall tool, the filter. Nothing after the run.
    const session = new OffloadSession({ gate: recording, model: MODEL });
    const agent = new Agent({
      name: "reader",
      instructions: "Summarize the report.",
      model: "gpt-5",
      tools: [
        tool({
          name: toolName,
          description: "fetch the report",
          parameters: z.object({ part: z.number() }),
          execute: async () => original,
        }),
        recallFunctionTool(session),
      ],
    });
    const result = await run(agent, "Summarize the report.", { callModelInputFilter: offloadInputFilter(session) });

    assert.equal(result.finalOutput, "done");
    assert.equal(mock.requests.length, 3, "three model calls");
    const second = JSON.stringify(mock.requests[1].input);
    assert.match(second, /\[offloaded: the output of fetch_report_\w+ call call_1 \(160,000 chars\)/);
    assert.ok(!second.includes("lorem ipsum"), "the second call's input holds the stub, not the output");
    const recalled = mock.requests[2].input.find(
      (item) => item.type === "function_call_output" && item.call_id.startsWith("recall_"),
    );
    const recalledText =
      typeof recalled?.output === "string" ? recalled.output : recalled?.output?.map((p) => p.text).join("");
    assert.equal(recalledText, original, "the recall answered the original");

    assert.ok(session.ended, "the run's end ended the session");
    const summary = await session.end(); // resolves to the report the run already sent
    assert.equal(sent.decide.length, 1);
    // The history the first call left: its whole input (1,200) and its output (40).
    assert.equal(sent.decide[0].context_tokens, 1_240);
    const [outcome] = sent.outcomes.flatMap((body) => body.items);
    assert.equal(outcome.turns_after, 2, "two model calls followed the decision");
    assert.equal(outcome.cached_turns, 2, "both read the cache");
    assert.equal(outcome.recalled, true);
    assert.deepEqual(summary.usage, {
      input_tokens: 42_500,
      output_tokens: 120,
      cache_read_input_tokens: 4_500,
      cache_creation_input_tokens: 0,
    });
    assert.deepEqual([summary.outcomes.accepted, summary.session.accepted], [1, 1]);
  });
});
