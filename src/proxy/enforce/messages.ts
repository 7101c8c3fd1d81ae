/**
 * @module proxy/enforce/messages
 *
 * Anthropic's Messages request, as enforce mode rewrites it
 * (docs/design/proxy.md §8.1–§8.2): each stubbed tool result's content
 * replaced by the stub our clients write, the recall tool appended to
 * `tools`, and each recall the proxy resolved put back where it happened.
 * Pure: the same request and the same session give the same bytes, which
 * is what keeps the provider's cached prefix whole from turn to turn.
 */
import { isRecord } from "../../replay";
import type { RecallExchange } from "./store";

/** The recall tool's name: our clients' default (clients/constants.json's recall_tool_name). */
export const RECALL_TOOL_NAME = "recall_tool_output";
/** Our clients' stub (clients/constants.json's stub_template), byte for byte. */
export const STUB_TEMPLATE =
  "[offloaded: the output of {tool_name} call {id} ({chars} chars) is not shown; call {recall_tool_name} with {id_json} to read it]";

/** The recall tool as the model sees it: the same name, purpose and input as our clients' recall tools. */
export const RECALL_TOOL = Object.freeze({
  name: RECALL_TOOL_NAME,
  description:
    "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names.",
  input_schema: {
    type: "object",
    properties: { id: { type: "string", description: "the tool call id named in the placeholder" } },
    required: ["id"],
  },
});

/** One tool result of a request, as enforce mode weighs it. */
export interface ToolOutput {
  call_id: string;
  /** Its text as the model reads it (a string, or its text blocks joined). */
  text: string;
  /** The tool that produced it, from the request's own tool_use, or null. */
  tool: string | null;
  /** Characters of the request before it: the history the gate weighs it against. */
  before: number;
  /** Whether it may be stubbed: text only, not an error, not a recall's own answer. */
  stubbable: boolean;
  /** Whether it comes after the request's last answer: sent for the first time, with the history resent. */
  latest: boolean;
}

/** What enforce mode reads of a Messages request. */
export interface MessagesView {
  model: string;
  /** No earlier answer in the request: the session's first request. */
  start: boolean;
  /** Why the session may not be enforced (the provider's own context management, a recall tool of the client's own), or null. */
  refusal: string | null;
  outputs: ToolOutput[];
  /** How many messages the client sent: a recall resolved in answer to this request goes back in at that index. */
  messages: number;
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

/** A tool result's content as text, or null when it holds anything but text (an image, a document). */
function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  const texts: string[] = [];
  for (const block of content) {
    if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") return null;
    texts.push(block.text);
  }
  return texts.join("\n");
}

/**
 * Reads a Messages request for enforce mode, or null when it is not one.
 *
 * @example
 * readMessages({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] })?.start // true
 */
export function readMessages(body: unknown): MessagesView | null {
  if (!isRecord(body) || typeof body.model !== "string" || !Array.isArray(body.messages)) return null;
  const tools = new Map<string, string>();
  const recallCalls = new Set<string>();
  const outputs: ToolOutput[] = [];
  let start = true;
  let lastAnswer = 0;
  let chars = JSON.stringify(body.system ?? "").length + JSON.stringify(body.tools ?? []).length;
  for (const message of body.messages) {
    if (!isRecord(message)) continue;
    if (message.role === "assistant") {
      start = false;
      lastAnswer = outputs.length;
    }
    const blocks = Array.isArray(message.content) ? message.content : [];
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
        tools.set(block.id, block.name);
        if (block.name === RECALL_TOOL_NAME) recallCalls.add(block.id);
      }
      if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
        const text = contentText(block.content);
        outputs.push({
          call_id: block.tool_use_id,
          text: text ?? "",
          tool: tools.get(block.tool_use_id) ?? null,
          before: chars,
          stubbable: text !== null && block.is_error !== true && !recallCalls.has(block.tool_use_id),
          latest: false,
        });
        chars += (text ?? JSON.stringify(block.content ?? "")).length;
      } else chars += JSON.stringify(block).length;
    }
    if (typeof message.content === "string") chars += message.content.length;
  }
  for (const output of outputs.slice(lastAnswer)) output.latest = true;
  return {
    model: body.model,
    start,
    refusal: refusalOf(body),
    outputs,
    messages: body.messages.length,
  };
}

/** Why a request's session is observed rather than enforced, or null. */
function refusalOf(body: Record<string, unknown>): string | null {
  // The provider's own edits and compaction rewrite the history upstream: stubs on top would fight them.
  if (body.context_management !== undefined && body.context_management !== null)
    return "the request uses the provider's context_management";
  if (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && tool.name === RECALL_TOOL_NAME))
    return `the client has a tool named ${RECALL_TOOL_NAME} of its own`;
  return null;
}

/** What the rewrite puts in: each output's stub by call id, the recalls, and the originals the recalls answer with. */
export interface Rewrite {
  stubs: ReadonlyMap<string, string>;
  recalls: readonly RecallExchange[];
  /** The original text of an output by call id, or null when it is gone. */
  original: (callId: string) => string | null;
}

/**
 * The request as it goes upstream: a copy with the stubs in, the recall
 * tool last in `tools`, and each resolved recall put back before the
 * client's message it came before. The client's own objects are left as
 * they were.
 *
 * @example
 * rewriteMessages(body, { stubs: new Map([["toolu_1", stubText("toolu_1", "Read", 90_000)]]), recalls: [], original: () => null })
 */
export function rewriteMessages(body: Record<string, unknown>, rewrite: Rewrite): Record<string, unknown> {
  const client = body.messages as unknown[];
  const messages: unknown[] = [];
  const byPlace = new Map<number, RecallExchange[]>();
  for (const exchange of rewrite.recalls) {
    // A recall after the client's last message has no answer in this request yet: the client retried; it is not put back.
    if (exchange.after >= client.length) continue;
    byPlace.set(exchange.after, [...(byPlace.get(exchange.after) ?? []), exchange]);
  }
  client.forEach((message, index) => {
    for (const exchange of byPlace.get(index) ?? []) messages.push(...recallMessages(exchange, rewrite.original));
    messages.push(stubbedMessage(message, rewrite.stubs));
  });
  const tools = Array.isArray(body.tools) ? [...body.tools, RECALL_TOOL] : [RECALL_TOOL];
  return { ...body, tools, messages };
}

/** A message with the stubbed tool results' content replaced; the same object when nothing in it is stubbed. */
function stubbedMessage(message: unknown, stubs: ReadonlyMap<string, string>): unknown {
  if (!isRecord(message) || !Array.isArray(message.content) || stubs.size === 0) return message;
  let changed = false;
  const content = message.content.map((block) => {
    if (!isRecord(block) || block.type !== "tool_result" || typeof block.tool_use_id !== "string") return block;
    const stub = stubs.get(block.tool_use_id);
    if (stub === undefined) return block;
    changed = true;
    return { ...block, content: stub };
  });
  return changed ? { ...message, content } : message;
}

/**
 * A resolved recall as the two messages the provider saw: the model's
 * answer calling the recall tool, and the originals as its results.
 *
 * @example
 * recallMessages({ after: 3, assistant: '{"role":"assistant","content":[…]}', results: [{ tool_use_id: "toolu_r1", output: "toolu_1" }] }, () => "…")
 */
export function recallMessages(exchange: RecallExchange, original: (callId: string) => string | null): unknown[] {
  return [
    JSON.parse(exchange.assistant) as unknown,
    {
      role: "user",
      content: exchange.results.map((result) => ({
        type: "tool_result",
        tool_use_id: result.tool_use_id,
        content: recallAnswer(result.output, original),
      })),
    },
  ];
}

/** What a recall answers: the original, or a plain word that it is gone. */
export function recallAnswer(output: string | null, original: (callId: string) => string | null): string {
  if (output === null) return "No tool output with that id was offloaded in this conversation.";
  return (
    original(output) ??
    `The original output of call ${output} is no longer available: the proxy keeps originals for a day after a conversation's last request.`
  );
}
