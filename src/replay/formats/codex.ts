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
 * a repeat and is not counted twice. Early releases (0.3x) wrote the items
 * bare, without the envelope, after a first line of metadata, and named no
 * model: such a rollout is priced with `--model`. Record and item types the
 * parser does not use (`ghost_snapshot`, and whatever later releases add)
 * are counted by type in one note, never an error per line. Pure.
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
  /** Record and item types the parser does not use, counted (newer releases add types: never an error per line). */
  const unknown = new Map<string, number>();
  const tally = (type: string) => unknown.set(type, (unknown.get(type) ?? 0) + 1);
  const events = new Map<string, number>();
  for (const { line, value } of jsonLines(text, path, issues)) {
    if (!isRecord(value)) {
      issues.push({ path, line, expected: 'a record with "type" and an object "payload"' });
      continue;
    }
    // Early releases wrote the items bare: a first line of metadata, then items and `record_type` markers.
    const legacy = !isRecord(value.payload);
    if (legacy && (typeof value.record_type === "string" || (typeof value.type !== "string" && "id" in value))) {
      if (typeof value.id === "string" && b.session === "") b.session = value.id;
      if (typeof value.instructions === "string" && value.instructions !== "")
        b.add({ kind: "system", text: value.instructions });
      if (typeof value.record_type === "string") tally(`record_type ${value.record_type}`);
      continue;
    }
    if (typeof value.type !== "string") {
      issues.push({ path, line, expected: 'a record with "type" and an object "payload"' });
      continue;
    }
    const p = legacy ? value : (value.payload as Record<string, unknown>);
    const at = instant(value.timestamp);
    switch (legacy ? "response_item" : value.type) {
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
        // Events repeat what the items hold (messages, reasoning) or mark the turn: counted, never input.
        if (p.type !== "token_count") events.set(String(p.type), (events.get(String(p.type)) ?? 0) + 1);
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
        if (kind !== "message" && !MODEL_OUTPUTS.has(kind) && !TOOL_OUTPUTS.has(kind)) {
          tally(`response_item ${kind || "(none)"}`);
          break;
        }
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
        addItem(b, p, kind, output);
        break;
      }
      default:
        tally(value.type);
    }
  }
  if (b.session === "") b.session = path;
  if (unknown.size > 0)
    b.notes.push(`records with no model input the parser does not know, by type (left out): ${byCount(unknown)}`);
  if (events.size > 0) b.notes.push(`events with no model input, by type: ${byCount(events)}`);
  return { trace: b.finish(), issues };
}

/** "type n, type n" by count, then name. */
function byCount(counts: Map<string, number>): string {
  return [...counts.entries()]
    .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
    .map(([type, n]) => `${type} ${n}`)
    .join(", ");
}

/** Adds a response item of a known type to the history. */
function addItem(b: TraceBuilder, p: Record<string, unknown>, kind: string, output: boolean): void {
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
  } else {
    const out = p.output;
    id = b.add({ kind: "tool_output", text: isRecord(out) ? textOf(out.content) : textOf(out), call_id: callId });
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
