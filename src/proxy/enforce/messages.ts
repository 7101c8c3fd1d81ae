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
import { messageOfJson, messageOfStream, recallCalls } from "./answer";
import {
  type AnswerRecall,
  type Dialect,
  RECALL_DESCRIPTION,
  RECALL_SCHEMA,
  RECALL_TOOL_NAME,
  type RequestView,
  type Rewrite,
  contentText,
  recallAnswer,
  type ToolOutput,
  withRecalls,
} from "./dialect";
import type { RecallExchange } from "./store";

/** The recall tool as Anthropic's model sees it: the same name, purpose and input as our clients' recall tools. */
export const RECALL_TOOL = Object.freeze({
  name: RECALL_TOOL_NAME,
  description: RECALL_DESCRIPTION,
  input_schema: RECALL_SCHEMA,
});

/**
 * Reads a Messages request for enforce mode, or null when it is not one.
 *
 * @example
 * readMessages({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] })?.start // true
 */
export function readMessages(body: unknown): RequestView | null {
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
        const text = contentText(block.content, "\n");
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

/**
 * Context editing that edits nothing: every edit a `clear_thinking_*` that keeps all thinking. Claude
 * Code sends `{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}` on every request; it
 * rewrites no history, so stubs fight nothing (docs/design/proxy.md §8.5).
 */
function keepsAll(management: unknown): boolean {
  if (!isRecord(management) || Object.keys(management).length !== 1 || !Array.isArray(management.edits)) return false;
  const edits: unknown[] = management.edits;
  return (
    edits.length > 0 &&
    edits.every((edit) => isRecord(edit) && String(edit.type).startsWith("clear_thinking_") && edit.keep === "all")
  );
}

/** Why a request's session is observed rather than enforced, or null. */
function refusalOf(body: Record<string, unknown>): string | null {
  // The provider's own edits and compaction rewrite the history upstream: stubs on top would fight them.
  if (body.context_management !== undefined && body.context_management !== null && !keepsAll(body.context_management))
    return "the request uses the provider's context_management";
  if (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && tool.name === RECALL_TOOL_NAME))
    return `the client has a tool named ${RECALL_TOOL_NAME} of its own`;
  return null;
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
  const messages = withRecalls(
    body.messages as unknown[],
    rewrite.recalls,
    (exchange) => recallMessages(exchange, rewrite.original),
    (message) => stubbedMessage(message, rewrite.stubs),
  );
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

/**
 * What an answer asks of the recall tool, when it calls only that tool:
 * the answer's message as it goes back to the provider, and the calls.
 *
 * @example
 * messagesRecall('{"content":[{"type":"tool_use","id":"r","name":"recall_tool_output","input":{"id":"t"}}],"stop_reason":"tool_use"}', false)?.calls
 * // [{ tool_use_id: "r", output: "t" }]
 */
export function messagesRecall(text: string, streamed: boolean): AnswerRecall | null {
  const message = streamed ? messageOfStream(text) : messageOfJson(text);
  const calls = message === null ? null : recallCalls(message);
  if (message === null || calls === null) return null;
  return { assistant: { role: "assistant", content: message.content }, calls };
}

/** Anthropic's Messages API, as enforce mode reads and rewrites it. */
export const MESSAGES_DIALECT: Dialect = {
  list: "messages",
  read: readMessages,
  rewrite: rewriteMessages,
  recallMessages,
  answerRecall: messagesRecall,
};
