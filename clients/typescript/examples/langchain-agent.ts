// A LangChain.js agent whose large tool results the gate may offload. Run it
// with a gate at $OFFLOAD_GATE_URL (default: `npm run dev`'s 127.0.0.1:8787).
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { offloadGateMiddleware } from "offload-gate-client/langchain";

const MODEL = "claude-opus-4-6";

// Your chat model goes here (new ChatAnthropic({ model: MODEL }), say). This fake plays one, so the
// example runs offline: it fetches the report, reads it back when it sees a placeholder, then answers.
const usage = (input: number, cacheRead: number) => ({
  input_tokens: input + cacheRead,
  output_tokens: 50,
  total_tokens: input + cacheRead + 50,
  input_token_details: { cache_read: cacheRead },
});
const respond = (messages: BaseMessage[]) => {
  const results = messages.filter((message) => ToolMessage.isInstance(message));
  const text = String(results.at(-1)?.content ?? "");
  const id = /\{"id":"([^"]+)"\}/.exec(text)?.[1];
  const call = (name: string, args: object, u: ReturnType<typeof usage>) =>
    new AIMessage({
      content: "",
      tool_calls: [{ id: `call_${results.length + 1}`, name, args, type: "tool_call" }],
      usage_metadata: u,
    });
  if (results.length === 0) return call("fetch_report", { quarter: "Q3" }, usage(1_500, 0));
  if (id) return call("recall_tool_output", { id }, usage(300, 1_500));
  return new AIMessage({
    content: `The report is ${text.length.toLocaleString("en-US")} characters long.`,
    usage_metadata: usage(40_000, 1_500),
  });
};
const model = fakeModel().respond(respond).respond(respond).respond(respond);

const fetchReport = tool(
  async ({ quarter }: { quarter: string }) => `${quarter} report\n${"revenue grew in every region; ".repeat(5_000)}`,
  {
    name: "fetch_report",
    description: "Fetches a quarterly report",
    schema: { type: "object", properties: { quarter: { type: "string" } }, required: ["quarter"] },
  },
);

const gate = createGateClient({ baseUrl: process.env.OFFLOAD_GATE_URL, timeoutMs: 2_000 }); // key: $OFFLOAD_GATE_API_KEY
const session = new OffloadSession({ gate, model: MODEL });
const agent = createAgent({ model, tools: [fetchReport], middleware: [offloadGateMiddleware(session)] });

const state = await agent.invoke({ messages: [{ role: "user", content: "How long is the Q3 report?" }] });
const summary = await session.end(); // already ended by the middleware when the agent finished: the same summary

console.log("the model saw:", model.calls[1]?.messages.find((message) => ToolMessage.isInstance(message))?.content);
console.log("answer:", state.messages.at(-1)?.content);
console.log(
  `session: ${summary.turns} turns, ${summary.decisions} decision, ${summary.stubbed} stubbed, ${summary.recalled} recalled`,
);
console.log(
  `reported: outcomes ${summary.outcomes?.ok ? summary.outcomes.accepted : "not taken"}, bill ${summary.session?.ok ? "accepted" : "not taken"}`,
);
