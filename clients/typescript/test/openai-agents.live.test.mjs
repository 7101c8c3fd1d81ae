// The OpenAI Agents SDK adapter end to end: the SDK's own Runner, driving a
// scripted Model (the SDK's custom-model interface, nothing on the network),
// against the local gate that npm run test:clients starts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, Runner, tool, Usage } from "@openai/agents";
import { z } from "zod";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { observeRun, offloadInputFilter, recallFunctionTool } from "offload-gate-client/openai-agents";
import { apiKey, baseUrl, bigOutput, MODEL, savings, skip, stubId, uniqueTool } from "./live-helpers.mjs";

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
    observeRun(session, result);
    const summary = await session.end();

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
});
