/**
 * @module replay/formats/claude-code
 *
 * Claude Code's session JSONL (the files under `~/.claude/projects/`): one
 * record a line, `type` "user" or "assistant", the message in `message`
 * (`content` blocks `text`, `thinking`, `tool_use`, `tool_result`), usage in
 * `message.usage`. A streamed answer is several records sharing
 * `message.id` (and `requestId`), each repeating the usage: they are one
 * call, its usage taken once. Sidechain records (a subagent's own context)
 * are left out and counted. Pure.
 */
import { count, instant, isRecord, textOf, TraceBuilder, type ParseIssue, type Trace, type Usage } from "../trace";
import { jsonLines, type ParseResult } from "./lines";

// Record types that carry no model input, skipped on purpose.
const QUIET = new Set(["summary", "system", "file-history-snapshot", "queue-operation", "progress"]);

/**
 * Parses one Claude Code session file.
 *
 * @example
 * parseClaudeCode('{"type":"user","sessionId":"s","timestamp":"2026-11-01T10:00:00Z","message":{"role":"user","content":"hi"}}', "s.jsonl").trace?.parts.length // 1
 */
export function parseClaudeCode(text: string, path: string): ParseResult {
  const issues: ParseIssue[] = [];
  const b = new TraceBuilder("claude-code", "");
  let sidechain = 0;
  let quiet = 0;
  let synthetic = 0;
  let currentId: string | null = null;
  for (const { line, value } of jsonLines(text, path, issues)) {
    if (!isRecord(value) || typeof value.type !== "string") {
      issues.push({ path, line, expected: 'a record with a string "type"' });
      continue;
    }
    if (b.session === "" && typeof value.sessionId === "string") b.session = value.sessionId;
    if (QUIET.has(value.type)) {
      quiet++;
      continue;
    }
    if (value.type !== "user" && value.type !== "assistant") {
      issues.push({
        path,
        line,
        expected: `"type" user or assistant (or a known non-message type), found ${JSON.stringify(value.type)}`,
      });
      continue;
    }
    if (value.isSidechain === true) {
      sidechain++;
      continue;
    }
    const message = value.message;
    if (!isRecord(message)) {
      issues.push({ path, line, expected: '"message" with "role" and "content"' });
      continue;
    }
    if (value.type === "user") {
      currentId = null;
      if (value.isCompactSummary === true) b.reset();
      addUser(b, message.content);
      continue;
    }
    const model = typeof message.model === "string" ? message.model : null;
    if (model === null) {
      issues.push({ path, line, expected: 'an assistant "message.model"' });
      continue;
    }
    if (model === "<synthetic>") {
      synthetic++;
      continue;
    }
    const id =
      typeof message.id === "string" ? message.id : typeof value.requestId === "string" ? value.requestId : null;
    const usage = usageOf(message.usage);
    if (id === null || id !== currentId) {
      b.call(model, instant(value.timestamp), usage, line);
      currentId = id;
    } else if (usage !== null) {
      // A later record of the same answer repeats the usage, the last with the final output count.
      const last = b.last();
      if (last !== undefined) last.usage = usage;
    }
    addAssistant(b, message.content);
  }
  if (sidechain > 0) b.notes.push(`${sidechain} sidechain records (a subagent's own context) left out`);
  if (synthetic > 0) b.notes.push(`${synthetic} synthetic assistant records (no API call) left out`);
  if (quiet > 0) b.notes.push(`${quiet} records with no model input (summary, system, snapshots) skipped`);
  if (b.session === "") b.session = path;
  return { trace: b.finish(), issues };
}

function addUser(b: TraceBuilder, content: unknown): void {
  if (typeof content === "string") {
    b.add({ kind: "user", text: content });
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "tool_result") {
      b.add({
        kind: "tool_output",
        text: textOf(block.content),
        call_id: typeof block.tool_use_id === "string" ? block.tool_use_id : null,
      });
    } else if (block.type === "image") {
      // An image's tokens are not in its characters; the calibration to recorded usage absorbs them.
      b.add({ kind: "user", text: "[image]", chars: 6_400 });
    } else {
      b.add({ kind: "user", text: textOf([block]) });
    }
  }
}

function addAssistant(b: TraceBuilder, content: unknown): void {
  const blocks =
    typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    let id: number;
    if (block.type === "tool_use") {
      id = b.add({
        kind: "tool_call",
        text: JSON.stringify(block.input ?? {}),
        tool: typeof block.name === "string" ? block.name : "unknown",
        call_id: typeof block.id === "string" ? block.id : null,
      });
    } else {
      id = b.add({
        kind: "assistant",
        text: block.type === "thinking" ? String(block.thinking ?? "") : textOf([block]),
      });
    }
    b.output(b.chars(id));
  }
}

/**
 * Anthropic's usage in the trace's shape: the cache writes split by TTL where
 * `cache_creation` says, else all at the 5-minute rate.
 *
 * @example
 * usageOf({ input_tokens: 3, cache_read_input_tokens: 1000, cache_creation_input_tokens: 200, output_tokens: 50 })
 * // { input: 3, cache_read: 1000, cache_write_5m: 200, cache_write_1h: 0, output: 50 }
 */
export function usageOf(raw: unknown): Usage | null {
  if (!isRecord(raw)) return null;
  const written = count(raw.cache_creation_input_tokens);
  const split = isRecord(raw.cache_creation) ? raw.cache_creation : null;
  const oneHour = split === null ? 0 : count(split.ephemeral_1h_input_tokens);
  const fiveMin = split === null ? written : count(split.ephemeral_5m_input_tokens);
  return {
    input: count(raw.input_tokens),
    cache_read: count(raw.cache_read_input_tokens),
    cache_write_5m: split === null || fiveMin + oneHour === 0 ? written : fiveMin,
    cache_write_1h: oneHour,
    output: count(raw.output_tokens),
  };
}
