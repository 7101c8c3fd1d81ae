// An AI SDK agent whose large tool results the gate may offload. Run it with
// a gate at $OFFLOAD_GATE_URL (default: `npm run dev`'s 127.0.0.1:8787).
import { generateText, isStepCount, jsonSchema, tool, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { offloadGateMiddleware, recallTool } from "offload-gate-client/ai-sdk";

const MODEL = "claude-opus-4-6";

// Your provider's model goes here (anthropic(MODEL), say). This mock plays one, so the example runs
// offline: it fetches the report, reads it back when it sees a placeholder, then answers.
const usage = (noCache: number, cacheRead: number) => ({
  inputTokens: { total: noCache + cacheRead, noCache, cacheRead, cacheWrite: 0 },
  outputTokens: { total: 50, text: 50, reasoning: undefined },
});
const provider = new MockLanguageModelV4({
  modelId: MODEL,
  doGenerate: async ({ prompt }) => {
    const results = prompt.flatMap((message) => (message.role === "tool" ? message.content : []));
    const last = results.at(-1);
    const text = last?.type === "tool-result" && last.output.type === "text" ? last.output.value : "";
    const id = /\{"id":"([^"]+)"\}/.exec(text)?.[1];
    const call = (toolName: string, input: object) => ({
      type: "tool-call" as const,
      toolCallId: `call_${results.length + 1}`,
      toolName,
      input: JSON.stringify(input),
    });
    if (results.length === 0)
      return {
        content: [call("fetch_report", { quarter: "Q3" })],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: usage(1_500, 0),
        warnings: [],
      };
    if (id)
      return {
        content: [call("recall_tool_output", { id })],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage: usage(300, 1_500),
        warnings: [],
      };
    return {
      content: [{ type: "text", text: `The report is ${text.length.toLocaleString("en-US")} characters long.` }],
      finishReason: { unified: "stop", raw: undefined },
      usage: usage(40_000, 1_500),
      warnings: [],
    };
  },
});

const gate = createGateClient({ baseUrl: process.env.OFFLOAD_GATE_URL, timeoutMs: 2_000 }); // key: $OFFLOAD_GATE_API_KEY
const session = new OffloadSession({ gate, model: MODEL });
const model = wrapLanguageModel({ model: provider, middleware: offloadGateMiddleware(session) });

const fetchReport = tool({
  description: "Fetches a quarterly report",
  inputSchema: jsonSchema<{ quarter: string }>({
    type: "object",
    properties: { quarter: { type: "string" } },
    required: ["quarter"],
  }),
  execute: async ({ quarter }) => `${quarter} report\n${"revenue grew in every region; ".repeat(5_000)}`, // about 37,000 tokens
});

const result = await generateText({
  model,
  tools: { fetch_report: fetchReport, [session.recallToolName]: recallTool(session) },
  stopWhen: isStepCount(10),
  prompt: "How long is the Q3 report?",
});
const summary = await session.end(); // every outcome and the session's bill, reported

const sent = provider.doGenerateCalls[1]?.prompt.flatMap((message) =>
  message.role === "tool" ? message.content : [],
)[0];
console.log("the model saw:", sent?.type === "tool-result" && sent.output.type === "text" ? sent.output.value : sent);
console.log("answer:", result.text);
console.log(
  `session: ${summary.turns} turns, ${summary.decisions} decision, ${summary.stubbed} stubbed, ${summary.recalled} recalled`,
);
console.log(
  `reported: outcomes ${summary.outcomes?.ok ? summary.outcomes.accepted : "not taken"}, bill ${summary.session?.ok ? "accepted" : "not taken"}`,
);
