import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { putRow, resetState } from "../support/helpers";
import { PROD_KEY } from "../support/secrets";
import {
  BIG_FILE,
  ENFORCE,
  messagesEnd,
  mockProvider,
  proxyCall,
  type Received,
  sdkFetch,
  type Sent,
  settle,
  sharedPrefix,
  text,
  UNIQUE,
} from "./proxy-support";

// Enforce mode on OpenAI's Chat Completions, against a mock provider: the
// OpenAI SDK runs a session whose big tool output is stubbed and recalled
// without the SDK seeing either, and a 30-turn streamed session with
// parallel tool calls keeps every request's prefix whole.

const MODEL = "gpt-5";
// gpt-5's list prices, its cached input a tenth of the rest.
const GPT5 = { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 };
const TOOLS = [
  { type: "function", function: { name: "read", description: "Reads a file", parameters: { type: "object" } } },
];

type Json = Record<string, unknown>;
interface Call {
  id: string;
  name: string;
  arguments: string;
}

/** A Chat Completions answer: JSON, or the chunks that carry it, then [DONE]. */
function chatAnswer(content: string | null, calls: Call[], stream: boolean): Response {
  const finish = calls.length > 0 ? "tool_calls" : "stop";
  const toolCalls = calls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  const head = { id: "chatcmpl-1", created: 1, model: MODEL };
  if (!stream)
    return Response.json({
      ...head,
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content,
            ...(calls.length > 0 ? { tool_calls: toolCalls } : {}),
            refusal: null,
          },
          finish_reason: finish,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  const chunk = (delta: Json, finishReason: string | null = null) =>
    `data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  let body = chunk({ role: "assistant", content: "" });
  if (content !== null) body += chunk({ content });
  calls.forEach((call, index) => {
    body += chunk({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
    });
    body += chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] });
  });
  body += chunk({}, finish);
  body += "data: [DONE]\n\n";
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

beforeEach(async () => {
  await resetState();
  await putRow(MODEL, GPT5);
});
afterEach(() => vi.restoreAllMocks());

/** A model that reads when asked, recalls what it finds stubbed, and answers from the original. */
function model(received: Received): Response {
  const body = JSON.parse(text(received.bytes)) as { messages: Json[]; stream?: boolean };
  const stream = body.stream === true;
  const last = body.messages[body.messages.length - 1]!;
  const content = typeof last.content === "string" ? last.content : "";
  if (last.role === "user")
    return chatAnswer(null, [{ id: "call_read", name: "read", arguments: '{"path":"budget.ts"}' }], stream);
  if (last.role === "tool" && content.startsWith("[offloaded:"))
    return chatAnswer(
      "Let me look.",
      [{ id: "call_recall", name: "recall_tool_output", arguments: JSON.stringify({ id: last.tool_call_id }) }],
      stream,
    );
  return chatAnswer(content.includes(UNIQUE) ? `It says: ${UNIQUE}` : "Nothing there.", [], stream);
}

describe("the OpenAI SDK's Chat Completions through an enforcing proxy", () => {
  it.each([false, true])(
    "runs a session whose big tool output is stubbed and recalled, and sees neither the stub nor the recall (streamed: %s)",
    async (stream) => {
      const { received } = mockProvider(model);
      const sent: Sent[] = [];
      const client = new OpenAI({
        apiKey: "sk-test",
        baseURL: "http://gate.test/proxy/openai/v1",
        defaultHeaders: { "x-offload-gate-key": PROD_KEY, "x-offload-session-id": `sess-chat-sdk-${stream}` },
        fetch: sdkFetch(sent, ENFORCE),
        maxRetries: 0,
      });
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "read the budget" }];
      const ask = async (): Promise<OpenAI.ChatCompletionMessage> => {
        const params = { model: MODEL, messages, tools: TOOLS as OpenAI.ChatCompletionTool[] };
        if (!stream) return (await client.chat.completions.create(params)).choices[0]!.message;
        const runner = client.chat.completions.stream(params);
        return (await runner.finalChatCompletion()).choices[0]!.message;
      };
      const first = await ask();
      const call = first.tool_calls![0]!;
      expect(call.type === "function" && call.function.name).toBe("read");
      messages.push({ role: "assistant", content: first.content, tool_calls: first.tool_calls });
      messages.push({ role: "tool", tool_call_id: call.id, content: BIG_FILE });
      const second = await ask();
      await settle();
      expect(second.content).toBe(`It says: ${UNIQUE}`);
      expect(second.tool_calls ?? []).toEqual([]);
      expect(received).toHaveLength(3);
      const firstSent = JSON.parse(text(received[0]!.bytes)) as { tools: { function: { name: string } }[] };
      expect(firstSent.tools.map((tool) => tool.function.name)).toEqual(["read", "recall_tool_output"]);
      expect(text(received[1]!.bytes)).toContain("[offloaded: the output of read call call_read");
      expect(text(received[1]!.bytes)).not.toContain(UNIQUE);
      expect(text(received[2]!.bytes)).toContain(UNIQUE);
      expect(text(sent[1]!.bytes)).not.toContain("[offloaded:");
    },
  );
});

describe("the cache under enforce mode on Chat Completions", () => {
  it("keeps every request's prefix whole over a 30-turn streamed session with parallel tool calls and recalls", async () => {
    const TURNS = 30;
    let turn = 0;
    let recalls = 0;
    const prefixes: number[] = [];
    let previous: Uint8Array | null = null;
    mockProvider((received) => {
      if (previous !== null) {
        const shared = sharedPrefix(received.bytes, previous);
        expect(shared).toBeGreaterThanOrEqual(messagesEnd(previous));
        prefixes.push(shared);
      }
      previous = received.bytes;
      const body = JSON.parse(text(received.bytes)) as { messages: Json[] };
      const tail: Json[] = [];
      for (let i = body.messages.length - 1; i >= 0 && body.messages[i]!.role === "tool"; i--)
        tail.unshift(body.messages[i]!);
      const stubs = tail.filter((m) => typeof m.content === "string" && m.content.startsWith("[offloaded:"));
      if (stubs.length > 0 && turn % 3 === 0) {
        recalls += 1;
        return chatAnswer(
          null,
          stubs.slice(0, 2).map((m, k) => ({
            id: `recall_${turn}_${k}`,
            name: "recall_tool_output",
            arguments: JSON.stringify({ id: m.tool_call_id }),
          })),
          true,
        );
      }
      if (turn >= TURNS - 1) return chatAnswer("Done.", [], true);
      return chatAnswer(
        `Turn ${turn}.`,
        [
          { id: `read_${turn}_a`, name: "read", arguments: `{"path":"a${turn}"}` },
          { id: `read_${turn}_b`, name: "read", arguments: `{"path":"b${turn}"}` },
          { id: `grep_${turn}`, name: "grep", arguments: '{"pattern":"x"}' },
        ],
        true,
      );
    });
    const messages: Json[] = [{ role: "user", content: "Audit the repository." }];
    for (turn = 0; turn < TURNS; turn++) {
      const res = await proxyCall(
        new Request("http://gate.test/proxy/openai/v1/chat/completions", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            authorization: "Bearer sk-test",
            "x-offload-gate-key": PROD_KEY,
            "x-offload-session-id": "sess-chat-cache-30",
          },
          body: JSON.stringify({ model: MODEL, stream: true, tools: TOOLS, messages }),
        }),
        ENFORCE,
      );
      expect(res.status).toBe(200);
      let content: string | null = null;
      const calls: Call[] = [];
      for (const line of (await res.text()).split("\n")) {
        if (!line.startsWith("data:") || line.includes("[DONE]")) continue;
        const delta = (JSON.parse(line.slice(5)) as { choices: { delta: Json }[] }).choices[0]!.delta;
        if (typeof delta.content === "string") content = (content ?? "") + delta.content;
        for (const part of (delta.tool_calls ?? []) as Json[]) {
          const call = (calls[part.index as number] ??= { id: "", name: "", arguments: "" });
          const fn = (part.function ?? {}) as Json;
          if (typeof part.id === "string") call.id = part.id;
          if (typeof fn.name === "string") call.name += fn.name;
          if (typeof fn.arguments === "string") call.arguments += fn.arguments;
        }
      }
      expect(calls.map((call) => call.name)).not.toContain("recall_tool_output");
      messages.push({
        role: "assistant",
        content: content === "" ? null : content,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      });
      if (calls.length === 0) break;
      for (const call of calls)
        messages.push({
          role: "tool",
          tool_call_id: call.id,
          content: call.name === "grep" ? "3 matches" : `${call.id}\n${"x".repeat(60)}\n`.repeat(2_000),
        });
    }
    expect(turn).toBe(TURNS - 1);
    expect(recalls).toBeGreaterThanOrEqual(5);
    expect(prefixes.length).toBeGreaterThan(TURNS);
    for (let i = 1; i < prefixes.length; i++) expect(prefixes[i]!).toBeGreaterThanOrEqual(prefixes[i - 1]!);
  }, 120_000);
});
