/**
 * @module proxy/adapters/openai
 *
 * OpenAI's two generation APIs, read for the proxy. Responses: `input`
 * items (messages, `function_call`, `function_call_output`, their custom
 * and shell kinds, reasoning), `instructions` and `tools` as the fixed
 * head, `prompt_cache_key` and `previous_response_id` as session hints;
 * its answer's usage from the body or the `response.completed` event. Chat
 * Completions: `messages` with `tool_calls` and `tool` results; usage from
 * the body or the stream's last chunk (sent when the client asked for it
 * with `stream_options.include_usage`). OpenAI's cache has no write price
 * and no markers: cached input is a cache read, the rest input.
 */
import { isRecord, promptUsage, textOf } from "../../replay";
import { stringField, type WireAdapter, type WireAnswer, type WirePart, type WireRequest } from "./wire";

const CALL_TYPES = new Set(["function_call", "custom_tool_call", "local_shell_call", "mcp_call"]);
const OUTPUT_TYPES = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"]);
const SYSTEM_ROLES = new Set(["system", "developer"]);

function head(model: string, instructions: unknown, tools: unknown): { parts: WirePart[]; text: string[] } {
  const parts: WirePart[] = [];
  const text: string[] = [model];
  for (const value of [instructions, tools]) {
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    const part = typeof value === "string" ? value : JSON.stringify(value);
    parts.push({ kind: "system", text: part, tool: null, call_id: null });
    text.push(part);
  }
  return { parts, text };
}

/**
 * A Responses request's parts and hints, or null for a body that is not one.
 *
 * @example
 * responsesRequest({ model: "gpt-5", input: "hi" })?.parts // [{ kind: "user", text: "hi", … }]
 */
export function responsesRequest(body: unknown): WireRequest | null {
  if (!isRecord(body) || typeof body.model !== "string") return null;
  const fixed = head(body.model, body.instructions, body.tools);
  const parts = fixed.parts;
  const answers: number[] = [];
  const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  if (!Array.isArray(items)) return null;
  let firstUser: string | null = null;
  let inAnswer = false;
  for (const item of items) {
    if (!isRecord(item)) continue;
    const type = stringField(item, "type") ?? "message";
    const answer = item.role === "assistant" || type === "reasoning" || CALL_TYPES.has(type);
    if (answer && !inAnswer) answers.push(parts.length);
    inAnswer = answer;
    if (CALL_TYPES.has(type)) {
      const text = stringField(item, "arguments") ?? stringField(item, "input") ?? JSON.stringify(item.action ?? {});
      parts.push({
        kind: "tool_call",
        text,
        tool: stringField(item, "name") ?? type,
        call_id: stringField(item, "call_id"),
      });
    } else if (OUTPUT_TYPES.has(type)) {
      parts.push({ kind: "tool_output", text: textOf(item.output), tool: null, call_id: stringField(item, "call_id") });
    } else if (type === "reasoning") {
      parts.push({ kind: "assistant", text: textOf(item.summary), tool: null, call_id: null });
    } else {
      const kind = answer ? "assistant" : SYSTEM_ROLES.has(String(item.role)) ? "system" : "user";
      const text = textOf(item.content);
      parts.push({ kind, text, tool: null, call_id: null });
      if (kind === "user" && firstUser === null) firstUser = text;
    }
  }
  return {
    model: body.model,
    parts,
    answers,
    ttl: null,
    continued: typeof body.previous_response_id === "string",
    userId: null,
    promptCacheKey: stringField(body, "prompt_cache_key"),
    previousResponseId: stringField(body, "previous_response_id"),
    prefix: [...fixed.text, firstUser ?? ""].join("\u0000"),
  };
}

/**
 * A Chat Completions request's parts and hints, or null for a body that is not one.
 *
 * @example
 * chatRequest({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] })?.parts.length // 1
 */
export function chatRequest(body: unknown): WireRequest | null {
  if (!isRecord(body) || typeof body.model !== "string" || !Array.isArray(body.messages)) return null;
  const fixed = head(body.model, undefined, body.tools);
  const parts = fixed.parts;
  const answers: number[] = [];
  let firstUser: string | null = null;
  for (const message of body.messages) {
    if (!isRecord(message)) continue;
    if (message.role === "assistant") {
      answers.push(parts.length);
      if (message.content !== null && message.content !== undefined)
        parts.push({ kind: "assistant", text: textOf(message.content), tool: null, call_id: null });
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (!isRecord(call)) continue;
        const fn = isRecord(call.function) ? call.function : isRecord(call.custom) ? call.custom : {};
        parts.push({
          kind: "tool_call",
          text: stringField(fn, "arguments") ?? stringField(fn, "input") ?? "",
          tool: stringField(fn, "name"),
          call_id: stringField(call, "id"),
        });
      }
    } else if (message.role === "tool") {
      parts.push({
        kind: "tool_output",
        text: textOf(message.content),
        tool: null,
        call_id: stringField(message, "tool_call_id"),
      });
    } else {
      const kind = SYSTEM_ROLES.has(String(message.role)) ? "system" : "user";
      const text = textOf(message.content);
      parts.push({ kind, text, tool: null, call_id: null });
      if (kind === "system") fixed.text.push(text);
      else if (firstUser === null) firstUser = text;
    }
  }
  return {
    model: body.model,
    parts,
    answers,
    ttl: null,
    continued: false,
    userId: null,
    promptCacheKey: stringField(body, "prompt_cache_key"),
    previousResponseId: null,
    prefix: [...fixed.text, firstUser ?? ""].join("\u0000"),
  };
}

/**
 * Merges what one JSON value of a Responses answer says: the response
 * itself, or a stream event that carries it (`response.created`,
 * `response.completed`).
 *
 * @example
 * responsesAnswer({ type: "response.completed", response: { id: "resp_1", usage: { input_tokens: 900, input_tokens_details: { cached_tokens: 800 }, output_tokens: 20 } } }, into);
 */
export function responsesAnswer(value: unknown, into: WireAnswer): void {
  if (!isRecord(value)) return;
  const response = isRecord(value.response) ? value.response : value;
  if (typeof response.id === "string") into.responseId = response.id;
  const usage = response.usage;
  if (!isRecord(usage)) return;
  const details = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  into.usage = promptUsage(usage.input_tokens, details.cached_tokens, 0, usage.output_tokens);
}

/**
 * Merges what one JSON value of a Chat Completions answer says: the
 * completion, or one chunk of its stream (the last carries the usage).
 *
 * @example
 * chatAnswer({ id: "chatcmpl-1", usage: { prompt_tokens: 900, prompt_tokens_details: { cached_tokens: 800 }, completion_tokens: 20 } }, into);
 */
export function chatAnswer(value: unknown, into: WireAnswer): void {
  if (!isRecord(value)) return;
  if (typeof value.id === "string") into.responseId = value.id;
  const usage = value.usage;
  if (!isRecord(usage)) return;
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  into.usage = promptUsage(usage.prompt_tokens, details.cached_tokens, 0, usage.completion_tokens);
}

/** The Responses API's adapter. */
export const OPENAI_RESPONSES: WireAdapter = { request: responsesRequest, answer: responsesAnswer };
/** The Chat Completions API's adapter. */
export const OPENAI_CHAT: WireAdapter = { request: chatRequest, answer: chatAnswer };
