// The LangChain.js adapter end to end: createAgent's own loop, driven by
// @langchain/core's fakeModel, against the local gate that npm run
// test:clients starts. The agent code does no bookkeeping: the middleware
// decides, offers the recall tool, counts, and ends the session.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { offloadGateMiddleware } from "offload-gate-client/langchain";
import {
  apiKey,
  baseUrl,
  bigOutput,
  billOf,
  closedPort,
  inHoldoutSession,
  MODEL,
  replayLog,
  savings,
  skip,
  stubId,
  uniqueTool,
} from "./live-helpers.mjs";

const usage = (input, read, write, output = 40) => ({
  input_tokens: input + read + write,
  output_tokens: output,
  total_tokens: input + read + write + output,
  input_token_details: { cache_read: read, cache_creation: write },
});
const toolMessages = (messages) => messages.filter((m) => ToolMessage.isInstance(m));

/** A fake model scripted like the AI SDK test's: `toolName` `calls` times, recall after a stub, then an answer. */
function scriptedModel({ toolName, calls = 1, usages }) {
  const model = fakeModel();
  let n = 0;
  const respond = (messages) => {
    const done = toolMessages(messages);
    const last = done.at(-1);
    const u = usages[Math.min(n, usages.length - 1)];
    n += 1;
    const call = (name, args) =>
      new AIMessage({
        content: "",
        tool_calls: [{ id: `call_${n}`, name, args, type: "tool_call" }],
        usage_metadata: u,
      });
    if (last?.name === toolName && typeof last.content === "string" && stubId(last.content))
      return call("recall_tool_output", { id: stubId(last.content) });
    if (done.filter((m) => m.name === toolName).length < calls) return call(toolName, { part: n });
    return new AIMessage({ content: "done", usage_metadata: u });
  };
  for (let i = 0; i < 40; i += 1) model.respond(respond);
  return model;
}

const agentTool = (name, outputFor) =>
  tool(async ({ part }) => outputFor(part), {
    name,
    description: "reads a part of the report",
    schema: { type: "object", properties: { part: { type: "number" } }, required: ["part"] },
  });

async function run(session, { toolName, calls, usages, outputFor }) {
  const model = scriptedModel({ toolName, calls, usages });
  const agent = createAgent({
    model,
    tools: [agentTool(toolName, outputFor)],
    middleware: [offloadGateMiddleware(session)],
  });
  const state = await agent.invoke(
    { messages: [{ role: "user", content: "Summarize the report." }] },
    { recursionLimit: 100 },
  );
  return { model, state, prompts: model.calls.map((call) => call.messages) };
}

describe("the LangChain.js adapter against the local gate", { skip, concurrency: false }, () => {
  const gate = createGateClient({ baseUrl, apiKey, timeoutMs: 10_000 });

  it("stubs a 40k-token result, recalls it, ends the session, and the savings report shows it", async () => {
    const toolName = uniqueTool("fetch_report");
    const original = bigOutput(3);
    const log = [];
    const session = new OffloadSession({ gate, model: MODEL, log: { write: (line) => log.push(line) } });
    const { state, prompts } = await run(session, {
      toolName,
      usages: [usage(1_200, 0, 1_000), usage(300, 2_200, 60), usage(41_000, 0, 0)],
      outputFor: () => original,
    });

    assert.equal(state.messages.at(-1).content, "done");
    assert.equal(prompts.length, 3);
    const seen = toolMessages(prompts[1]).find((m) => m.name === toolName);
    assert.match(seen.content, /^\[offloaded: the output of fetch_report_\w+ call call_1 \(160,000 chars\)/);
    assert.ok(
      !prompts[1].some((m) => String(m.content).includes("lorem ipsum")),
      "the second prompt holds the stub, not the output",
    );
    assert.ok(
      toolMessages(prompts[2]).find((m) => m.name === "recall_tool_output").content === original,
      "the recall answered the original",
    );

    assert.ok(session.ended, "afterAgent ended the session");
    const summary = await session.end();
    assert.deepEqual([summary.decisions, summary.stubbed, summary.recalled, summary.turns], [1, 1, 1, 3]);
    assert.deepEqual([summary.outcomes.accepted, summary.session.accepted], [1, 1]);
    const report = await savings(toolName);
    assert.deepEqual([report.decisions, report.fired, report.outcomes, report.recall.realized], [1, 1, 1, 1]);
    assert.equal(report.horizon.realized_mean, 2);
    assert.equal(report.cache_hit_rate.realized_mean, 0.5);
    const bill = {
      input_tokens: 42_500,
      output_tokens: 120,
      cache_read_input_tokens: 2_200,
      cache_creation_input_tokens: 1_060,
    };
    assert.deepEqual(summary.usage, bill);
    const row = report.holdout.tools.find((t) => t.tool_name === toolName);
    assert.deepEqual([row.sessions, row.treated], [1, 1], "one billed session, treated for this tool");
    assert.ok(Math.abs(row.information.treated_mean_cost_usd - billOf(bill)) < 1e-9);

    // The session's own log of that loop: replay reads it with no issue, each call's input as the
    // prompt held it (the stub from the second call on), and its recorded bill is the gate's.
    const replayed = await replayLog(log);
    assert.deepEqual([replayed.issues, replayed.skipped], [[], []]);
    const [logged] = replayed.sessions;
    assert.deepEqual([logged.format, logged.session, logged.calls], ["offload-log", session.sessionId, 3]);
    assert.ok(Math.abs(logged.check.recorded_usd - billOf(bill)) < 1e-12, `${logged.check.recorded_usd}`);
    const inputs = log.map((line) => JSON.parse(line).input.map((part) => [part.tool, part.chars]));
    assert.deepEqual(inputs[0], []);
    assert.equal(inputs[1][0][0], toolName);
    assert.ok(inputs[1][0][1] < 1_000, "the second call's input holds the stub's size, not 160,000");
    assert.deepEqual(inputs[2].at(-1), ["recall_tool_output", original.length], "the recall's answer in full");
  });

  it("in a holdout session, no prompt ever holds a stub", async () => {
    const toolName = uniqueTool("held_fetch");
    await inHoldoutSession(gate, toolName, async (sessionId) => {
      const session = new OffloadSession({ gate, model: MODEL, sessionId });
      const { prompts } = await run(session, {
        toolName,
        calls: 3,
        usages: [usage(1_000, 500, 0)],
        outputFor: (part) => bigOutput(part),
      });
      const summary = await session.end();
      assert.equal(prompts.length, 4);
      for (const messages of prompts) assert.ok(!messages.some((m) => String(m.content).includes("[offloaded:")));
      assert.deepEqual([summary.decisions, summary.stubbed, summary.outcomes.accepted], [3, 0, 3]);
    });
  });

  it("with the gate down, the loop runs on the originals and nothing throws", async () => {
    const down = createGateClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 500 });
    const session = new OffloadSession({ gate: down, model: MODEL });
    const original = bigOutput(4);
    const { state, prompts } = await run(session, {
      toolName: "fetch_report",
      usages: [usage(1_000, 0, 0)],
      outputFor: () => original,
    });
    assert.equal(state.messages.at(-1).content, "done");
    assert.ok(toolMessages(prompts[1])[0].content === original, "the original went to the model");
    const summary = await session.end();
    assert.deepEqual([summary.decisions, summary.stubbed, summary.outcomes, summary.session.ok], [0, 0, null, false]);
  });

  it("over a long loop, consecutive prompts share their prefix byte for byte", async () => {
    const toolName = uniqueTool("crawl");
    const session = new OffloadSession({ gate, model: MODEL });
    const sizes = [160_000, 2_000, 120_000, 9_000, 200_000, 60_000, 1_000, 140_000];
    const { prompts: calls } = await run(session, {
      toolName,
      calls: sizes.length,
      usages: [usage(900, 30_000, 2_000)],
      outputFor: (part) => bigOutput(part, sizes[(part - 1) % sizes.length]),
    });
    const prompts = calls.map((messages) =>
      messages.map((m) =>
        JSON.stringify({ type: m.type, content: m.content, tool_calls: m.tool_calls, tool_call_id: m.tool_call_id }),
      ),
    );
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
