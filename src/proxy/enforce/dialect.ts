/**
 * @module proxy/enforce/dialect
 *
 * What enforce mode needs of a provider's wire format (docs/design/proxy.md
 * §8): read a request's tool outputs, rewrite it with the stubs, the recall
 * tool and the recalls put back, and tell an answer that calls the recall
 * tool alone. One per API (Anthropic's Messages, OpenAI's Chat Completions);
 * the stub and the recall tool are our clients' own, in every one. Pure.
 */
import { isRecord } from "../../replay";
import type { RecallExchange } from "./store";

/** The recall tool's name: our clients' default (clients/constants.json's recall_tool_name). */
export const RECALL_TOOL_NAME = "recall_tool_output";
/** Our clients' stub (clients/constants.json's stub_template), byte for byte. */
export const STUB_TEMPLATE =
  "[offloaded: the output of {tool_name} call {id} ({chars} chars) is not shown; call {recall_tool_name} with {id_json} to read it]";
/** The recall tool's purpose, as our clients describe it. */
export const RECALL_DESCRIPTION =
  "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names.";
/** The recall tool's input, as our clients take it. */
export const RECALL_SCHEMA = Object.freeze({
  type: "object",
  properties: { id: { type: "string", description: "the tool call id named in the placeholder" } },
  required: ["id"],
});

/** One recall the model asked for: the call's id and the output id it names (null when it names none). */
export interface RecallCall {
  tool_use_id: string;
  output: string | null;
}

/** An answer that calls the recall tool alone: its message as it goes back to the provider, and its calls. */
export interface AnswerRecall {
  assistant: Record<string, unknown>;
  calls: RecallCall[];
}

/** One tool result of a request, as enforce mode weighs it. */
export interface ToolOutput {
  call_id: string;
  /** Its text as the model reads it (a string, or its text blocks joined). */
  text: string;
  /** The tool that produced it, from the request's own tool call, or null. */
  tool: string | null;
  /** Characters of the request before it: the history the gate weighs it against. */
  before: number;
  /** Whether it may be stubbed: text only, not an error, not a recall's own answer. */
  stubbable: boolean;
  /** Whether it comes after the request's last answer: sent for the first time, with the history resent. */
  latest: boolean;
}

/** What enforce mode reads of a request. */
export interface RequestView {
  model: string;
  /** No earlier answer in the request: the session's first request. */
  start: boolean;
  /** Why the session may not be enforced (the provider's own context management, a recall tool of the client's own), or null. */
  refusal: string | null;
  outputs: ToolOutput[];
  /** How many messages the client sent: a recall resolved in answer to this request goes back in at that index. */
  messages: number;
}

/** What the rewrite puts in: each output's stub by call id, the recalls, and the originals the recalls answer with. */
export interface Rewrite {
  stubs: ReadonlyMap<string, string>;
  recalls: readonly RecallExchange[];
  /** The original text of an output by call id, or null when it is gone. */
  original: (callId: string) => string | null;
}

/** One provider API, as enforce mode reads and rewrites it. */
export interface Dialect {
  /** The body's field that holds the conversation: `messages`, or Responses' `input`. */
  list: "messages" | "input";
  read(body: unknown): RequestView | null;
  rewrite(body: Record<string, unknown>, rewrite: Rewrite): Record<string, unknown>;
  /** A resolved recall as the messages the provider saw: the answer calling the tool, then the results. */
  recallMessages(exchange: RecallExchange, original: (callId: string) => string | null): unknown[];
  /** The recall an answer asks for, when it calls the recall tool alone; null otherwise. */
  answerRecall(text: string, streamed: boolean): AnswerRecall | null;
}

/**
 * A tool output's content as text, its text parts joined by `separator`
 * (Messages joins a tool result's text blocks by lines, Chat Completions
 * concatenates a message's text parts), or null when it holds anything but
 * text (an image, a document), which enforce mode never stubs.
 *
 * @example
 * contentText([{ type: "text", text: "a" }, { type: "text", text: "b" }], "\n") // "a\nb"
 */
export function contentText(content: unknown, separator: string): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const part of content) {
    if (!isRecord(part) || part.type !== "text" || typeof part.text !== "string") return null;
    texts.push(part.text);
  }
  return texts.join(separator);
}

/**
 * The stub for an output, as our clients write it (clients/typescript/src/stub.ts).
 *
 * @example
 * stubText("toolu_1", "Read", 160_000)
 * // '[offloaded: the output of Read call toolu_1 (160,000 chars) is not shown; call recall_tool_output with {"id":"toolu_1"} to read it]'
 */
export function stubText(id: string, tool: string, chars: number): string {
  const values: Record<string, string> = {
    tool_name: tool,
    id,
    chars: String(chars).replace(/\B(?=(\d{3})+(?!\d))/g, ","),
    recall_tool_name: RECALL_TOOL_NAME,
    id_json: JSON.stringify({ id }),
  };
  return STUB_TEMPLATE.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * What a recall answers: the original, or a plain word that it is gone.
 *
 * @example
 * recallAnswer(null, () => null) // "No tool output with that id was offloaded in this conversation."
 */
export function recallAnswer(output: string | null, original: (callId: string) => string | null): string {
  if (output === null) return "No tool output with that id was offloaded in this conversation.";
  return (
    original(output) ??
    `The original output of call ${output} is no longer available: the proxy keeps originals for a day after a conversation's last request.`
  );
}

/**
 * The client's messages with each recall put back before the message it
 * came before; one after the client's last message has no answer in this
 * request yet (the client retried) and is left out.
 *
 * @example
 * withRecalls(messages, recalls, (exchange) => [assistant, results], (message) => message)
 */
export function withRecalls(
  client: readonly unknown[],
  recalls: readonly RecallExchange[],
  recallMessages: (exchange: RecallExchange) => unknown[],
  each: (message: unknown) => unknown,
): unknown[] {
  const byPlace = new Map<number, RecallExchange[]>();
  for (const exchange of recalls) {
    if (exchange.after >= client.length) continue;
    byPlace.set(exchange.after, [...(byPlace.get(exchange.after) ?? []), exchange]);
  }
  const messages: unknown[] = [];
  client.forEach((message, index) => {
    for (const exchange of byPlace.get(index) ?? []) messages.push(...recallMessages(exchange));
    messages.push(each(message));
  });
  return messages;
}
