// A Claude Agent SDK agent whose large tool outputs the gate may offload. Run
// it with a gate at $OFFLOAD_GATE_URL (default: `npm run dev`'s 127.0.0.1:8787).
import { createServer } from "node:http";
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { observe, offloadHooks, recallServer } from "offload-gate-client/claude-agent-sdk";

const MODEL = "claude-opus-4-6";
const RECALL = "mcp__offload__recall_tool_output";

// The Anthropic API goes here (leave ANTHROPIC_BASE_URL unset). This mock on loopback plays it, so the
// example runs offline: it fetches the report, reads it back page by page, then answers.
type Block = { type: string; text?: string; content?: string | Block[] };
const resultText = (b: Block) =>
  (typeof b.content === "string" ? b.content : (b.content ?? []).map((c) => c.text ?? "").join("")).replace(
    /\s*<system-reminder>[\s\S]*$/,
    "",
  );
const seen: string[] = [];
let read = "";
const api = createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const { messages = [], tools = [] } = JSON.parse(body || "{}") as {
    messages?: { content: string | Block[] }[];
    tools?: unknown[];
  };
  // Claude Code's own side requests (no tools) get a plain answer.
  if (tools.length === 0)
    return void res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: "msg_side",
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      }),
    );
  const results = messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === "tool_result")
    .map(resultText);
  const last = results.at(-1) ?? "";
  seen.push(results[0] ?? "");
  const stub = /\{"id":"([^"]+)"\}/.exec(results[0] ?? "")?.[1];
  if (results.length > 1) read += last.replace(/\n\[recall: [^\]]*\]$/, "");
  const next = /call again with offset (\d+)\]$/.exec(last)?.[1];
  const use = (name: string, input: object) => ({ type: "tool_use", id: `toolu_0${results.length + 1}`, name, input });
  const content =
    results.length === 0
      ? [use("mcp__reports__fetch_report", { quarter: "Q3" })]
      : stub && (results.length === 1 || next)
        ? [use(RECALL, { id: stub, ...(next ? { offset: Number(next) } : {}) })]
        : [{ type: "text", text: `The report is ${read.length.toLocaleString("en-US")} characters long.` }];
  const usage = {
    input_tokens: 1_500,
    output_tokens: 50,
    cache_read_input_tokens: results.length > 0 ? 1_500 : 0,
    cache_creation_input_tokens: 0,
  };
  const message = {
    id: `msg_${messages.length}`,
    type: "message",
    role: "assistant",
    model: MODEL,
    content,
    stop_reason: content[0]!.type === "tool_use" ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage,
  };
  res.writeHead(200, { "content-type": "text/event-stream" });
  const send = (type: string, data: object) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send("message_start", { message: { ...message, content: [], stop_reason: null } });
  content.forEach((block, index) => {
    send("content_block_start", {
      index,
      content_block: "input" in block ? { ...block, input: {} } : { type: "text", text: "" },
    });
    send("content_block_delta", {
      index,
      delta:
        "input" in block
          ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
          : { type: "text_delta", text: block.text },
    });
    send("content_block_stop", { index });
  });
  send("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: 50 },
  });
  res.end(`event: message_stop\ndata: {"type":"message_stop"}\n\n`);
});
await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
const { port } = api.address() as { port: number };

const gate = createGateClient({ baseUrl: process.env.OFFLOAD_GATE_URL, timeoutMs: 2_000 }); // key: $OFFLOAD_GATE_API_KEY
const session = new OffloadSession({ gate, model: MODEL, recallToolName: RECALL }); // the stub names the tool as the model sees it
const reports = createSdkMcpServer({
  name: "reports",
  tools: [
    tool(
      "fetch_report",
      "Fetches a quarterly report",
      { quarter: z.string() },
      async ({ quarter }) => ({
        content: [{ type: "text", text: `${quarter} report\n${"revenue grew in every region; ".repeat(2_000)}` }],
      }),
      { alwaysLoad: true },
    ),
  ],
});

let answer = "";
const env = {
  ...process.env,
  ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
  ANTHROPIC_API_KEY: "sk-ant-example",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
};
for await (const message of query({
  prompt: "How long is the Q3 report?",
  options: {
    model: MODEL,
    env,
    hooks: offloadHooks(session),
    mcpServers: { reports, offload: recallServer(session) },
    canUseTool: async (_name, input) => ({ behavior: "allow", updatedInput: input }), // Claude Code refuses bypassPermissions as root
  },
})) {
  await observe(session, message); // each call's usage; the result message ends the session
  if (message.type === "result" && message.subtype === "success") answer = message.result;
}
api.close();
const summary = await session.end(); // already ended on the result message: the same summary

console.log("the model saw:", seen[1]);
console.log("answer:", answer);
console.log(
  `session: ${summary.turns} turns, ${summary.decisions} decision, ${summary.stubbed} stubbed, ${summary.recalled} recalled`,
);
console.log(
  `reported: outcomes ${summary.outcomes?.ok ? summary.outcomes.accepted : "not taken"}, bill ${summary.session?.ok ? "accepted" : "not taken"}`,
);
