/**
 * @module replay/formats/claude-code
 *
 * Claude Code's session JSONL (the files under `~/.claude/projects/`): one
 * record a line, `type` "user" or "assistant", the message in `message`
 * (`content` blocks `text`, `thinking`, `tool_use`, `tool_result`), usage in
 * `message.usage`. A streamed answer is several records sharing
 * `message.id` (and `requestId`), each repeating the usage: they are one
 * call, its usage taken once, also where a parallel tool call's result sits
 * between them. A subagent's own file (every record sidechain) is its own
 * session; sidechain records in a main file are left out and counted. Pure.
 */

import { jsonLines, type ParseResult } from "./lines";
import { count, instant, isRecord, type ParseIssue, TraceBuilder, textOf, type Usage } from "./trace";

/** One stream of records: the main conversation, or a subagent's sidechain. */
interface Stream {
  b: TraceBuilder;
  /** message.id (or requestId) → the call it opened: one call per id, however its records interleave. */
  callOf: Map<string, number>;
  records: number;
}

/**
 * Parses one Claude Code session file. Records of any type other than user
 * and assistant carry no model input: they are counted by type in one note,
 * never reported as errors (attachment, system, summary, progress, …, and
 * types that come later). A file whose records are all sidechain is a
 * subagent's own context: one session keyed by its `agentId`, its `parent`
 * the `sessionId`. Sidechain records inside a main file are left out and
 * counted.
 *
 * @example
 * parseClaudeCode('{"type":"user","sessionId":"s","timestamp":"2026-11-01T10:00:00Z","message":{"role":"user","content":"hi"}}', "s.jsonl").trace?.parts.length // 1
 */
export function parseClaudeCode(text: string, path: string): ParseResult {
  const issues: ParseIssue[] = [];
  const main: Stream = { b: new TraceBuilder("claude-code", ""), callOf: new Map(), records: 0 };
  const side: Stream = { b: new TraceBuilder("claude-code", ""), callOf: new Map(), records: 0 };
  const skipped = new Map<string, number>();
  let sessionId = "";
  let agentId = "";
  let synthetic = 0;
  let sideModelGaps = 0;
  let compactions = 0;
  for (const { line, value } of jsonLines(text, path, issues)) {
    if (!isRecord(value) || typeof value.type !== "string") {
      issues.push({ path, line, expected: 'a record with a string "type"' });
      continue;
    }
    if (sessionId === "" && typeof value.sessionId === "string") sessionId = value.sessionId;
    if (value.type !== "user" && value.type !== "assistant") {
      skipped.set(value.type, (skipped.get(value.type) ?? 0) + 1);
      // A compaction's boundary: the next call starts from the summary, keeping nothing before it.
      if (value.type === "system" && isCompactBoundary(value)) {
        (value.isSidechain === true ? side : main).b.reset();
        compactions++;
      }
      continue;
    }
    const stream = value.isSidechain === true ? side : main;
    if (stream === side && agentId === "" && typeof value.agentId === "string") agentId = value.agentId;
    stream.records++;
    const message = value.message;
    if (!isRecord(message)) {
      issues.push({ path, line, expected: '"message" with "role" and "content"' });
      continue;
    }
    const b = stream.b;
    if (value.type === "user") {
      if (value.isCompactSummary === true) b.reset();
      addUser(b, message.content);
      continue;
    }
    const model = typeof message.model === "string" ? message.model : null;
    if (model === null) {
      if (stream === side) sideModelGaps++;
      else issues.push({ path, line, expected: 'an assistant "message.model"' });
      continue;
    }
    if (model === "<synthetic>") {
      synthetic++;
      continue;
    }
    const id =
      typeof message.id === "string" ? message.id : typeof value.requestId === "string" ? value.requestId : null;
    const usage = usageOf(message.usage);
    const seen = id === null ? undefined : stream.callOf.get(id);
    let call: number;
    if (seen === undefined) {
      call = b.call(model, instant(value.timestamp), usage, line);
      if (id !== null) stream.callOf.set(id, call);
    } else {
      // A later record of the same answer (streamed, or a parallel tool call after
      // another's result) repeats the usage, the last with the final output count.
      call = seen;
      if (usage !== null) b.callAt(call)!.usage = usage;
    }
    addAssistant(b, message.content, call);
  }
  const subagent = main.b.callCount() === 0 && side.b.callCount() > 0;
  const { b } = subagent ? side : main;
  if (subagent) {
    b.session = agentId !== "" ? `agent-${agentId}` : `${sessionId || path}:sidechain`;
    b.parent = sessionId !== "" ? sessionId : null;
    b.notes.push(
      `a subagent's own context (every record is sidechain): session keyed by agentId${b.parent === null ? "" : `, parent ${b.parent}`}`,
    );
    if (main.records > 0) b.notes.push(`${main.records} main-conversation records with no model call left out`);
  } else {
    b.session = sessionId !== "" ? sessionId : path;
    if (side.records > 0) b.notes.push(`${side.records} sidechain records (a subagent's own context) left out`);
  }
  if (sideModelGaps > 0 && subagent) b.notes.push(`${sideModelGaps} assistant records without a model left out`);
  if (synthetic > 0) b.notes.push(`${synthetic} synthetic assistant records (no API call) left out`);
  if (compactions > 0) b.notes.push(`${compactions} compactions (compact_boundary): the history restarts at each`);
  if (skipped.size > 0)
    b.notes.push(
      `records with no model input, by type: ${[...skipped.entries()]
        .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
        .map(([type, n]) => `${type} ${n}`)
        .join(", ")}`,
    );
  return { trace: b.finish(), issues };
}

/** Claude Code's compaction marker: `subtype` "compact_boundary", on the record or (older writers) in its message. */
function isCompactBoundary(record: Record<string, unknown>): boolean {
  if (record.subtype === "compact_boundary") return true;
  return isRecord(record.message) && record.message.subtype === "compact_boundary";
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

function addAssistant(b: TraceBuilder, content: unknown, call: number): void {
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
    b.outputTo(call, b.chars(id));
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
