/**
 * @module proxy/enforce/chat
 *
 * OpenAI's Chat Completions request, as enforce mode rewrites it
 * (docs/design/proxy.md §8): each stubbed `tool` message's content replaced
 * by the stub our clients write, the recall tool appended to `tools` as a
 * function, each recall the proxy resolved put back where it happened; and
 * an answer (JSON, or its chunks put back together) that calls the recall
 * function alone. Pure.
 */
import { isRecord } from "../../replay";
import {
  type AnswerRecall,
  type Dialect,
  RECALL_DESCRIPTION,
  RECALL_SCHEMA,
  RECALL_TOOL_NAME,
  type RecallCall,
  type RequestView,
  type Rewrite,
  contentText,
  recallAnswer,
  type ToolOutput,
  withRecalls,
} from "./dialect";
import type { RecallExchange } from "./store";

/** The recall tool as a Chat Completions function. */
export const CHAT_RECALL_TOOL = Object.freeze({
  type: "function",
  function: { name: RECALL_TOOL_NAME, description: RECALL_DESCRIPTION, parameters: RECALL_SCHEMA },
});

/**
 * Reads a Chat Completions request for enforce mode, or null when it is not one.
 *
 * @example
 * readChat({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] })?.start // true
 */
export function readChat(body: unknown): RequestView | null {
  if (!isRecord(body) || typeof body.model !== "string" || !Array.isArray(body.messages)) return null;
  const tools = new Map<string, string>();
  const outputs: ToolOutput[] = [];
  let start = true;
  let lastAnswer = 0;
  let chars = JSON.stringify(body.tools ?? []).length;
  for (const message of body.messages) {
    if (!isRecord(message)) continue;
    if (message.role === "assistant") {
      start = false;
      lastAnswer = outputs.length;
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : [])
        if (
          isRecord(call) &&
          typeof call.id === "string" &&
          isRecord(call.function) &&
          typeof call.function.name === "string"
        )
          tools.set(call.id, call.function.name);
    }
    if (message.role === "tool" && typeof message.tool_call_id === "string") {
      const text = contentText(message.content, "");
      const tool = tools.get(message.tool_call_id) ?? null;
      outputs.push({
        call_id: message.tool_call_id,
        text: text ?? "",
        tool,
        before: chars,
        stubbable: text !== null && tool !== RECALL_TOOL_NAME,
        latest: false,
      });
    }
    chars += JSON.stringify(message).length;
  }
  for (const output of outputs.slice(lastAnswer)) output.latest = true;
  const own =
    Array.isArray(body.tools) &&
    body.tools.some((tool) => isRecord(tool) && isRecord(tool.function) && tool.function.name === RECALL_TOOL_NAME);
  return {
    model: body.model,
    start,
    refusal: own ? `the client has a tool named ${RECALL_TOOL_NAME} of its own` : null,
    outputs,
    messages: body.messages.length,
  };
}

/**
 * The request as it goes upstream: a copy with the stubs in, the recall
 * function last in `tools`, and each resolved recall put back.
 *
 * @example
 * rewriteChat(body, { stubs: new Map([["call_1", "[offloaded: …]"]]), recalls: [], original: () => null })
 */
export function rewriteChat(body: Record<string, unknown>, rewrite: Rewrite): Record<string, unknown> {
  const messages = withRecalls(
    body.messages as unknown[],
    rewrite.recalls,
    (exchange) => recallChatMessages(exchange, rewrite.original),
    (message) => {
      if (!isRecord(message) || message.role !== "tool" || typeof message.tool_call_id !== "string") return message;
      const stub = rewrite.stubs.get(message.tool_call_id);
      return stub === undefined ? message : { ...message, content: stub };
    },
  );
  const tools = Array.isArray(body.tools) ? [...body.tools, CHAT_RECALL_TOOL] : [CHAT_RECALL_TOOL];
  return { ...body, tools, messages };
}

/**
 * A resolved recall as the messages the provider saw: the answer calling
 * the recall function, then one `tool` message per call.
 *
 * @example
 * recallChatMessages({ after: 3, assistant: '{"role":"assistant",…}', results: [{ tool_use_id: "call_r", output: "call_1" }] }, () => "…")
 */
export function recallChatMessages(exchange: RecallExchange, original: (callId: string) => string | null): unknown[] {
  return [
    JSON.parse(exchange.assistant) as unknown,
    ...exchange.results.map((result) => ({
      role: "tool",
      tool_call_id: result.tool_use_id,
      content: recallAnswer(result.output, original),
    })),
  ];
}

interface ChatCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * What a Chat Completions answer asks of the recall function, when its one
 * choice stopped for tool calls and every call is the recall function.
 *
 * @example
 * chatRecall('{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[…]},"finish_reason":"tool_calls"}]}', false)
 */
export function chatRecall(text: string, streamed: boolean): AnswerRecall | null {
  const answer = streamed ? chatOfStream(text) : chatOfJson(text);
  if (answer === null || answer.finish !== "tool_calls" || answer.calls.length === 0) return null;
  if (answer.calls.some((call) => call.name !== RECALL_TOOL_NAME)) return null;
  const calls: RecallCall[] = answer.calls.map((call) => ({
    tool_use_id: call.id,
    output: recalledId(call.arguments),
  }));
  return {
    assistant: {
      role: "assistant",
      content: answer.content,
      tool_calls: answer.calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      })),
    },
    calls,
  };
}

function recalledId(args: string): string | null {
  try {
    const value = JSON.parse(args) as unknown;
    return isRecord(value) && typeof value.id === "string" ? value.id : null;
  } catch {
    return null;
  }
}

interface ChatAnswer {
  content: string | null;
  calls: ChatCall[];
  finish: string | null;
}

function chatOfJson(text: string): ChatAnswer | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (!isRecord(value) || !Array.isArray(value.choices) || value.choices.length !== 1) return null;
    const choice = value.choices[0];
    if (!isRecord(choice) || !isRecord(choice.message)) return null;
    const calls: ChatCall[] = [];
    for (const call of Array.isArray(choice.message.tool_calls) ? choice.message.tool_calls : []) {
      if (!isRecord(call) || typeof call.id !== "string" || !isRecord(call.function)) return null;
      calls.push({
        id: call.id,
        name: String(call.function.name),
        arguments: typeof call.function.arguments === "string" ? call.function.arguments : "",
      });
    }
    const content = typeof choice.message.content === "string" ? choice.message.content : null;
    return { content, calls, finish: typeof choice.finish_reason === "string" ? choice.finish_reason : null };
  } catch {
    return null;
  }
}

function chatOfStream(text: string): ChatAnswer | null {
  let content: string | null = null;
  const calls: ChatCall[] = [];
  let finish: string | null = null;
  let done = false;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") {
      done = true;
      continue;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      continue;
    }
    if (!isRecord(chunk) || !Array.isArray(chunk.choices)) continue;
    for (const choice of chunk.choices) {
      if (!isRecord(choice)) continue;
      // More than one choice: not an answer the proxy resolves.
      if (typeof choice.index === "number" && choice.index !== 0) return null;
      if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
      const delta = isRecord(choice.delta) ? choice.delta : null;
      if (delta === null) continue;
      if (typeof delta.content === "string") content = (content ?? "") + delta.content;
      for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        if (!isRecord(part) || typeof part.index !== "number") continue;
        const call = (calls[part.index] ??= { id: "", name: "", arguments: "" });
        if (typeof part.id === "string") call.id = part.id;
        const fn = isRecord(part.function) ? part.function : null;
        if (typeof fn?.name === "string") call.name += fn.name;
        if (typeof fn?.arguments === "string") call.arguments += fn.arguments;
      }
    }
  }
  if (!done || calls.some((call) => call === undefined || call.id === "")) return null;
  return { content, calls, finish };
}

/** OpenAI's Chat Completions API, as enforce mode reads and rewrites it. */
export const CHAT_DIALECT: Dialect = {
  list: "messages",
  read: readChat,
  rewrite: rewriteChat,
  recallMessages: recallChatMessages,
  answerRecall: chatRecall,
};
