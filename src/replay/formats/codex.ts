/**
 * @module replay/formats/codex
 *
 * Codex CLI rollouts (`~/.codex/sessions/**\/rollout-*.jsonl`): one
 * `{timestamp, type, payload}` a line. `response_item` payloads are the
 * model's input and output (`message`, `reasoning`, `function_call`,
 * `function_call_output`, `custom_tool_call` and its output,
 * `local_shell_call`); `turn_context` names the model; an `event_msg` of type
 * `token_count` reports the usage of the call just made (`last_token_usage`,
 * whose `input_tokens` include `cached_input_tokens`). A run of model outputs
 * after an input item is one call; a token_count whose totals did not move is
 * a repeat and is not counted twice. Pure.
 */

import { jsonLines, type ParseResult } from "./lines";
import { count, instant, isRecord, type ParseIssue, TraceBuilder, textOf, UNNAMED_MODEL, type Usage } from "./trace";

const MODEL_OUTPUTS = new Set([
  "reasoning",
  "function_call",
  "custom_tool_call",
  "local_shell_call",
  "web_search_call",
]);
const TOOL_OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"]);

/**
 * Parses one Codex rollout.
 *
 * @example
 * parseCodex(rolloutText, "rollout-2026-11-01.jsonl").trace?.format // "codex"
 */
export function parseCodex(text: string, path: string): ParseResult {
  const issues: ParseIssue[] = [];
  const b = new TraceBuilder("codex", "");
  let model: string | null = null;
  let inCall = false;
  let lastTotal = -1;
  for (const { line, value } of jsonLines(text, path, issues)) {
    if (!isRecord(value) || typeof value.type !== "string" || !isRecord(value.payload)) {
      issues.push({ path, line, expected: 'a record with "type" and an object "payload"' });
      continue;
    }
    const p = value.payload;
    const at = instant(value.timestamp);
    switch (value.type) {
      case "session_meta":
        if (typeof p.id === "string") b.session = p.id;
        if (typeof p.instructions === "string" && p.instructions !== "")
          b.add({ kind: "system", text: p.instructions });
        break;
      case "turn_context":
        if (typeof p.model === "string") model = p.model;
        break;
      case "compacted":
        b.reset();
        if (typeof p.message === "string") b.add({ kind: "user", text: p.message });
        inCall = false;
        break;
      case "event_msg":
        if (p.type === "token_count" && isRecord(p.info)) {
          const total = isRecord(p.info.total_token_usage) ? count(p.info.total_token_usage.total_tokens) : -1;
          const call = b.last();
          if (total !== lastTotal && call !== undefined && call.usage === null)
            call.usage = usageOf(p.info.last_token_usage);
          lastTotal = total;
        }
        break;
      case "response_item": {
        const kind = typeof p.type === "string" ? p.type : "";
        const output = MODEL_OUTPUTS.has(kind) || (kind === "message" && p.role === "assistant");
        if (output && !inCall) {
          if (model === null) {
            b.notes.push('the transcript names no model (no "turn_context" before the first model output)');
            model = UNNAMED_MODEL;
          }
          b.call(model, at, null, line);
          inCall = true;
        }
        if (!output) inCall = false;
        addItem(b, p, kind, output, path, line, issues);
        break;
      }
      default:
        issues.push({
          path,
          line,
          expected: `"type" session_meta, turn_context, response_item, event_msg or compacted, found ${JSON.stringify(value.type)}`,
        });
    }
  }
  if (b.session === "") b.session = path;
  return { trace: b.finish(), issues };
}

function addItem(
  b: TraceBuilder,
  p: Record<string, unknown>,
  kind: string,
  output: boolean,
  path: string,
  line: number,
  issues: ParseIssue[],
): void {
  const callId = typeof p.call_id === "string" ? p.call_id : null;
  let id: number;
  if (kind === "message") {
    const role =
      p.role === "assistant" ? "assistant" : p.role === "developer" || p.role === "system" ? "system" : "user";
    id = b.add({ kind: role, text: textOf(p.content) });
  } else if (kind === "reasoning") {
    id = b.add({
      kind: "assistant",
      text: textOf(p.summary) + (typeof p.encrypted_content === "string" ? p.encrypted_content : ""),
    });
  } else if (MODEL_OUTPUTS.has(kind)) {
    const args = p.arguments ?? p.input ?? p.action ?? {};
    id = b.add({
      kind: "tool_call",
      text: typeof args === "string" ? args : JSON.stringify(args),
      tool: typeof p.name === "string" ? p.name : kind === "local_shell_call" ? "shell" : kind,
      call_id: callId,
    });
  } else if (TOOL_OUTPUTS.has(kind)) {
    const out = p.output;
    id = b.add({ kind: "tool_output", text: isRecord(out) ? textOf(out.content) : textOf(out), call_id: callId });
  } else {
    issues.push({ path, line, expected: `a known response_item type, found ${JSON.stringify(kind)}` });
    return;
  }
  if (output) b.output(b.chars(id));
}

/**
 * OpenAI's usage in the trace's shape: `input_tokens` include the cached ones.
 *
 * @example
 * usageOf({ input_tokens: 5000, cached_input_tokens: 4000, output_tokens: 120, reasoning_output_tokens: 64 })
 * // { input: 1000, cache_read: 4000, cache_write_5m: 0, cache_write_1h: 0, output: 120 }
 */
export function usageOf(raw: unknown): Usage | null {
  if (!isRecord(raw)) return null;
  const cached = count(raw.cached_input_tokens);
  // GPT-5.6 and later report the prefix they wrote to the 30-minute cache, billed at the row's write.
  const written = count(raw.cache_write_tokens);
  return {
    input: Math.max(0, count(raw.input_tokens) - cached - written),
    cache_read: cached,
    cache_write_5m: written,
    cache_write_1h: 0,
    output: count(raw.output_tokens),
  };
}
