// The AI SDK adapter end to end: generateText's own multi-step tool loop,
// driven by the SDK's MockLanguageModelV4, against the local gate that
// npm run test:clients starts. The agent code does no bookkeeping: the
// middleware, the recall tool and session.end() do it all.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateText, isStepCount, streamText, wrapLanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { offloadGateMiddleware } from "offload-gate-client/ai-sdk";
import {
  apiKey,
  baseUrl,
  bigOutput,
  billOf,
  closedPort,
  inHoldoutSession,
  MODEL,
  savings,
  skip,
  uniqueTool,
} from "./live-helpers.mjs";
import { agentTools, finish, results, scriptedModel, usage } from "./ai-sdk.helpers.mjs";

describe("the AI SDK adapter against the local gate", { skip, concurrency: false }, () => {
  const gate = createGateClient({ baseUrl, apiKey, timeoutMs: 10_000 });

  it("stubs a 40k-token result, recalls it, and the savings report shows the outcome and the bill", async () => {
    const toolName = uniqueTool("fetch_report");
    const original = bigOutput(1);
    const session = new OffloadSession({ gate, model: MODEL });
    const mock = scriptedModel({
      toolName,
      usages: [usage(1_200, 0, 1_000), usage(300, 2_200, 60), usage(41_000, 0, 0)],
    });
    const model = wrapLanguageModel({ model: mock, middleware: offloadGateMiddleware(session) });

    const result = await generateText({
      model,
      tools: agentTools(session, toolName, () => original),
      stopWhen: isStepCount(6),
      prompt: "Summarize the report.",
    });
    const summary = await session.end();

    assert.equal(result.text, "done");
    const prompts = mock.doGenerateCalls.map((call) => call.prompt);
    assert.equal(prompts.length, 3);
    const [seen] = results(prompts[1]).filter((p) => p.toolName === toolName);
    assert.match(seen.output.value, /^\[offloaded: the output of fetch_report_\w+ call call_1 \(160,000 chars\)/);
    assert.ok(!JSON.stringify(prompts[1]).includes("lorem ipsum"), "the second prompt holds the stub, not the output");
    const recalled = results(prompts[2]).find((p) => p.toolName === "recall_tool_output");
    assert.ok(recalled.output.value === original, "the recall answered the original");
    assert.equal(results(prompts[2]).find((p) => p.toolName === toolName).output.value, seen.output.value);

    assert.deepEqual([summary.decisions, summary.stubbed, summary.recalled, summary.turns], [1, 1, 1, 3]);
    assert.deepEqual(
      [summary.outcomes.ok, summary.outcomes.accepted, summary.session.ok, summary.session.accepted],
      [true, 1, true, 1],
    );
    const report = await savings(toolName);
    assert.deepEqual([report.decisions, report.fired, report.outcomes], [1, 1, 1]);
    assert.equal(report.recall.realized, 1);
    assert.equal(report.horizon.realized_mean, 2, "two model calls after the decision");
    assert.equal(report.cache_hit_rate.realized_mean, 0.5, "one of them read the cache");
    const row = report.holdout.tools.find((t) => t.tool_name === toolName);
    assert.deepEqual([row.sessions, row.treated], [1, 1], "one billed session, treated for this tool");
    const bill = {
      input_tokens: 42_500,
      output_tokens: 120,
      cache_read_input_tokens: 2_200,
      cache_creation_input_tokens: 1_060,
    };
    assert.deepEqual(summary.usage, bill);
    assert.ok(
      Math.abs(row.information.treated_mean_cost_usd - billOf(bill)) < 1e-9,
      `${row.information.treated_mean_cost_usd} vs ${billOf(bill)}`,
    );
  });

  it('with contextManagement: "gate", sends the priced clear_tool_uses edit instead of stubbing, and reports what the API cleared', async () => {
    const toolName = uniqueTool("cleared_fetch");
    const original = bigOutput(9);
    const session = new OffloadSession({ gate, model: MODEL });
    const applied = [];
    const calls = [];
    const mock = new MockLanguageModelV4({
      modelId: MODEL,
      doGenerate: async (options) => {
        calls.push(options);
        const metadata = options.providerOptions?.anthropic?.contextManagement
          ? {
              anthropic: {
                contextManagement: {
                  appliedEdits: [{ type: "clear_tool_uses_20250919", clearedToolUses: 1, clearedInputTokens: 40_000 }],
                },
              },
            }
          : undefined;
        const first = calls.length === 1;
        const content = first
          ? [{ type: "tool-call", toolCallId: "call_1", toolName, input: JSON.stringify({ part: 1 }) }]
          : [{ type: "text", text: "done" }];
        return {
          content,
          finishReason: finish(first ? "tool-calls" : "stop"),
          usage: usage(1_000, first ? 0 : 2_000, first ? 1_000 : 40_000),
          warnings: [],
          providerMetadata: metadata,
        };
      },
    });
    const model = wrapLanguageModel({
      model: mock,
      middleware: offloadGateMiddleware(session, {
        contextManagement: "gate",
        onAppliedEdits: (edits) => applied.push(...edits),
      }),
    });
    await generateText({
      model,
      tools: agentTools(session, toolName, () => original),
      stopWhen: isStepCount(4),
      prompt: "Summarize the report.",
    });
    // A clearing decision has no tool_name, so its outcome shows as a step in the tenant's whole report.
    const before = await savings();
    const summary = await session.end();
    const after = await savings();

    assert.equal(calls.length, 2);
    assert.equal(calls[0].providerOptions?.anthropic?.contextManagement, undefined, "no tool result yet: no edit");
    assert.equal(summary.outcomes.accepted, 1, "the clearing decision's outcome, with what the API cleared");
    assert.deepEqual(
      [after.outcomes - before.outcomes, after.net.fired_with_outcome - before.net.fired_with_outcome],
      [1, 1],
    );
    assert.notEqual(after.net.realized_usd, before.net.realized_usd, "the applied edit is priced");
    const [edit] = calls[1].providerOptions.anthropic.contextManagement.edits;
    assert.deepEqual(
      [edit.type, edit.keep, edit.trigger.type, edit.clearAtLeast.type],
      ["clear_tool_uses_20250919", { type: "tool_uses", value: 0 }, "input_tokens", "input_tokens"],
    );
    assert.ok(
      results(calls[1].prompt).find((p) => p.toolName === toolName).output.value === original,
      "the prompt itself is left whole: the API clears",
    );
    assert.deepEqual(applied, [{ type: "clear_tool_uses_20250919", clearedToolUses: 1, clearedInputTokens: 40_000 }]);
    assert.equal(session.status("call_1"), undefined, "nothing was stubbed client-side");
  });

  it("observes a streamed call's usage, cache reads included", async () => {
    const session = new OffloadSession({ gate, model: MODEL });
    const mock = new MockLanguageModelV4({
      doStream: async () => ({
        stream: convertArrayToReadableStream([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "hi" },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: finish("stop"), usage: usage(100, 9_000, 0, 7) },
        ]),
      }),
    });
    const result = streamText({
      model: wrapLanguageModel({ model: mock, middleware: offloadGateMiddleware(session) }),
      prompt: "hello",
    });
    assert.equal(await result.text, "hi");
    const summary = await session.end();
    assert.deepEqual(
      [summary.turns, summary.usage],
      [1, { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 9_000, cache_creation_input_tokens: 0 }],
    );
  });

  it("with the plan (on by default), a result kept on entry is stubbed by the plan from then on, and never put back", async () => {
    const toolName = uniqueTool("plan_fetch");
    const original = bigOutput(5);
    // Horizon 0 on entry: the gate keeps the output; the plan, at the config's horizon, may stub it.
    // planEvery 1: a plan may be asked on every call (the default asks at most every 10).
    const session = new OffloadSession({ gate, model: MODEL, request: { horizon: 0 }, planEvery: 1 });
    const mock = scriptedModel({ toolName, calls: 3, usages: [usage(1_000, 0, 1_200), usage(200, 42_000, 300)] });
    const model = wrapLanguageModel({ model: mock, middleware: offloadGateMiddleware(session) });
    await generateText({
      model,
      tools: agentTools(session, toolName, (part) => (part === 1 ? original : "short")),
      stopWhen: isStepCount(10),
      prompt: "go",
    });
    const summary = await session.end();
    const first = (prompt) => results(prompt).find((p) => p.toolCallId === "call_1")?.output.value;
    const prompts = mock.doGenerateCalls.map((call) => call.prompt);
    assert.ok(first(prompts[1]) === original, "sent in full on entry");
    assert.match(first(prompts[2]), /^\[offloaded:/, "the plan stubbed it before the next call");
    for (const prompt of prompts.slice(2)) assert.equal(first(prompt), first(prompts[2]));
    assert.ok(
      results(prompts.at(-1)).some((p) => p.toolName === "recall_tool_output" && p.output.value === original),
      "the recall answered the original",
    );
    assert.deepEqual([summary.decisions, summary.stubbed, summary.recalled, summary.outcomes.accepted], [2, 1, 1, 2]);
    const report = await savings(toolName);
    assert.deepEqual([report.decisions, report.fired, report.outcomes], [1, 0, 1]);
  });

  it("in a holdout session, no prompt ever holds a stub", async () => {
    const toolName = uniqueTool("held_fetch");
    await inHoldoutSession(gate, toolName, async (sessionId) => {
      const session = new OffloadSession({ gate, model: MODEL, sessionId });
      const mock = scriptedModel({ toolName, calls: 3, usages: [usage(1_000, 500, 0)] });
      const model = wrapLanguageModel({ model: mock, middleware: offloadGateMiddleware(session) });
      await generateText({
        model,
        tools: agentTools(session, toolName, (part) => bigOutput(part)),
        stopWhen: isStepCount(8),
        prompt: "go",
      });
      const summary = await session.end();
      assert.equal(mock.doGenerateCalls.length, 4);
      for (const call of mock.doGenerateCalls) assert.ok(!JSON.stringify(call.prompt).includes("[offloaded:"));
      assert.deepEqual([summary.decisions, summary.stubbed, summary.outcomes.accepted], [3, 0, 3]);
    });
  });

  it("with the gate down, the loop runs on the originals and nothing throws", async () => {
    const down = createGateClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 500 });
    const session = new OffloadSession({ gate: down, model: MODEL });
    const original = bigOutput(2);
    const mock = scriptedModel({ toolName: "fetch_report", usages: [usage(1_000, 0, 0)] });
    const model = wrapLanguageModel({ model: mock, middleware: offloadGateMiddleware(session, { plan: true }) });
    const result = await generateText({
      model,
      tools: agentTools(session, "fetch_report", () => original),
      stopWhen: isStepCount(4),
      prompt: "go",
    });
    const summary = await session.end();
    assert.equal(result.text, "done");
    assert.ok(results(mock.doGenerateCalls[1].prompt)[0].output.value === original, "the original went to the model");
    assert.deepEqual([summary.decisions, summary.stubbed, summary.outcomes, summary.session.ok], [0, 0, null, false]);
  });

  it("over a long loop, consecutive prompts share their prefix byte for byte", async () => {
    const toolName = uniqueTool("crawl");
    const session = new OffloadSession({ gate, model: MODEL });
    const sizes = [160_000, 2_000, 120_000, 9_000, 200_000, 60_000, 1_000, 140_000];
    const mock = scriptedModel({ toolName, calls: sizes.length, usages: [usage(900, 30_000, 2_000)] });
    const model = wrapLanguageModel({ model: mock, middleware: offloadGateMiddleware(session) });
    await generateText({
      model,
      tools: agentTools(session, toolName, (part) => bigOutput(part, sizes[(part - 1) % sizes.length])),
      stopWhen: isStepCount(30),
      prompt: "crawl",
    });
    await session.end();
    const prompts = mock.doGenerateCalls.map((call) => call.prompt.map((message) => JSON.stringify(message)));
    assert.ok(prompts.length >= sizes.length + 1);
    for (let i = 1; i < prompts.length; i += 1)
      assert.deepEqual(
        prompts[i].slice(0, prompts[i - 1].length),
        prompts[i - 1],
        `prompt ${i} keeps prompt ${i - 1} as its prefix`,
      );
    assert.ok(
      prompts.at(-1).some((m) => m.includes("[offloaded:")),
      "some results were stubbed",
    );
  });
});
