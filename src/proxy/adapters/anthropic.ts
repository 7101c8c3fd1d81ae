/**
 * @module proxy/adapters/anthropic
 *
 * Anthropic's Messages API, read for the proxy: the system prompt and the
 * tools as the conversation's fixed head, each message's blocks as parts
 * (text, thinking, tool_use, tool_result), `cache_control` markers as the
 * cache write the request asks for, `metadata.user_id` as a session hint;
 * and the answer's usage, from the JSON body or from the stream's
 * `message_start` and `message_delta` events.
 */
import { anthropicUsage, isRecord, textOf, type Usage } from "../../replay";
import { stringField, type WireAdapter, type WireAnswer, type WirePart, type WireRequest } from "./wire";

/** A block's text as the model reads it; an image or a document counts its data's length, not its bytes kept. */
function blockText(block: Record<string, unknown>): string {
  if (typeof block.text === "string") return block.text;
  if (typeof block.thinking === "string") return block.thinking;
  return JSON.stringify(block);
}

function markerTtl(value: unknown): "5m" | "1h" | null {
  if (!isRecord(value)) return null;
  return value.ttl === "1h" ? "1h" : "5m";
}

/**
 * The Messages request's parts and hints, or null for a body that is not a
 * Messages request (the provider answers that one).
 *
 * @example
 * anthropicRequest({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "hi" }] })?.parts.length // 1
 */
export function anthropicRequest(body: unknown): WireRequest | null {
  if (!isRecord(body) || typeof body.model !== "string" || !Array.isArray(body.messages)) return null;
  const parts: WirePart[] = [];
  const answers: number[] = [];
  let ttl: "5m" | "1h" | null = markerTtl(body.cache_control);
  const mark = (value: unknown) => {
    const found = markerTtl(value);
    if (found === "1h" || (found === "5m" && ttl === null)) ttl = found;
  };
  const head: string[] = [];
  if (body.system !== undefined) {
    const system = textOf(body.system);
    if (Array.isArray(body.system)) for (const block of body.system) if (isRecord(block)) mark(block.cache_control);
    parts.push({ kind: "system", text: system, tool: null, call_id: null });
    head.push(system);
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    for (const tool of body.tools) if (isRecord(tool)) mark(tool.cache_control);
    const tools = JSON.stringify(body.tools);
    parts.push({ kind: "system", text: tools, tool: null, call_id: null });
    head.push(tools);
  }
  let firstUser: string | null = null;
  for (const message of body.messages) {
    if (!isRecord(message)) continue;
    const assistant = message.role === "assistant";
    if (assistant) answers.push(parts.length);
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (!Array.isArray(blocks)) continue;
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      mark(block.cache_control);
      if (block.type === "tool_use") {
        parts.push({
          kind: "tool_call",
          text: JSON.stringify(block.input ?? {}),
          tool: stringField(block, "name"),
          call_id: stringField(block, "id"),
        });
      } else if (block.type === "tool_result") {
        parts.push({
          kind: "tool_output",
          text: textOf(block.content),
          tool: null,
          call_id: stringField(block, "tool_use_id"),
        });
      } else {
        const text = blockText(block);
        parts.push({ kind: assistant ? "assistant" : "user", text, tool: null, call_id: null });
        if (!assistant && firstUser === null) firstUser = text;
      }
    }
  }
  const metadata = isRecord(body.metadata) ? body.metadata : null;
  return {
    model: body.model,
    parts,
    answers,
    ttl,
    continued: false,
    userId: metadata === null ? null : stringField(metadata, "user_id"),
    promptCacheKey: null,
    previousResponseId: null,
    prefix: [body.model, ...head, firstUser ?? ""].join("\u0000"),
  };
}

/**
 * Merges what one JSON value of an answer says: the whole message, or one
 * event of its stream (`message_start` carries the input side, each
 * `message_delta` the running output count).
 *
 * @example
 * const into = { usage: null, responseId: null };
 * anthropicAnswer({ type: "message_start", message: { id: "msg_1", usage: { input_tokens: 12, output_tokens: 1 } } }, into);
 * into.usage?.input // 12
 */
export function anthropicAnswer(value: unknown, into: WireAnswer): void {
  if (!isRecord(value)) return;
  if (value.type === "message_start" && isRecord(value.message)) {
    anthropicAnswer(value.message, into);
    return;
  }
  const usage = anthropicUsage(value.usage);
  if (usage === null) return;
  if (value.type === "message_delta" && into.usage !== null) {
    // A delta's counts are cumulative: the output always, the input side when it restates it.
    into.usage = mergeDelta(into.usage, usage, value.usage as Record<string, unknown>);
    return;
  }
  into.usage = usage;
  if (typeof value.id === "string") into.responseId = value.id;
}

function mergeDelta(before: Usage, delta: Usage, raw: Record<string, unknown>): Usage {
  // A field the delta leaves out, or sends as null, keeps message_start's count.
  const has = (name: string) => typeof raw[name] === "number";
  const writes = has("cache_creation_input_tokens");
  return {
    input: has("input_tokens") ? delta.input : before.input,
    cache_read: has("cache_read_input_tokens") ? delta.cache_read : before.cache_read,
    cache_write_5m: writes ? delta.cache_write_5m : before.cache_write_5m,
    cache_write_1h: writes ? delta.cache_write_1h : before.cache_write_1h,
    output: delta.output,
  };
}

/** The Messages API's adapter. */
export const ANTHROPIC: WireAdapter = { request: anthropicRequest, answer: anthropicAnswer };
