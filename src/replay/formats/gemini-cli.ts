/**
 * @module replay/formats/gemini-cli
 *
 * Gemini CLI's recorded sessions (gemini-cli-core's `ChatRecordingService`,
 * `~/.gemini/tmp/<project>/chats/session-*.json[l]`). Two layouts, read
 * alike: the older one JSON document `{sessionId, projectHash, startTime,
 * lastUpdated, messages}`; the newer one JSONL, a metadata line
 * `{sessionId, projectHash, …}`, then one line per message written (a
 * message written again under its `id` replaces the earlier one, in place),
 * `{"$set": {…}}` updates (with `messages`: a checkpoint that replaces them
 * all) and `{"$rewindTo": id}` (drops that message and every later one), as
 * `loadConversationRecord` reads it. A message is `{id, timestamp, type,
 * content}`; `type` "gemini" is one model call: `model`, `thoughts`,
 * `toolCalls` (`id`, `name`, `args`, `result`) and `tokens` (`input` is
 * the prompt with the cached tokens in it, `cached`, `output`, `thoughts`,
 * `tool`). Tool results come back as a "user" message of `functionResponse`
 * parts (newer writers) or only as each tool call's `result` (older ones).
 * "info", "error" and "warning" messages are not model input. No cost is
 * recorded. Pure.
 */

import { jsonLines, type ParseResult } from "./lines";
import { count, instant, isRecord, type ParseIssue, TraceBuilder, textOf, UNNAMED_MODEL, type Usage } from "./trace";

/**
 * Whether a record is a Gemini CLI session's metadata (its first line, or the whole legacy document).
 *
 * @example
 * isGeminiSession({ sessionId: "s", projectHash: "p" }) // true
 */
export function isGeminiSession(record: Record<string, unknown>): boolean {
  return typeof record.sessionId === "string" && typeof record.projectHash === "string";
}

interface Message {
  record: Record<string, unknown>;
  line: number;
}

/**
 * Parses one Gemini CLI session, JSONL or the older JSON document.
 *
 * @example
 * parseGeminiCli('{"sessionId":"s","projectHash":"p","messages":[{"id":"m","type":"user","timestamp":"2026-01-01T00:00:00Z","content":[{"text":"hi"}]}]}', "session-1.json").trace?.session // "s"
 */
export function parseGeminiCli(text: string, path: string): ParseResult {
  const issues: ParseIssue[] = [];
  const messages = new Map<string, Message>();
  let meta: Record<string, unknown> = {};
  let rewinds = 0;
  const put = (record: unknown, line: number) => {
    if (!isRecord(record) || typeof record.id !== "string") {
      issues.push({ path, line, expected: 'a message with a string "id"' });
      return;
    }
    const seen = messages.get(record.id);
    messages.set(record.id, { record, line: seen?.line ?? line });
  };
  const head = text.trimStart();
  let whole: unknown;
  if (head.startsWith("{")) {
    try {
      whole = JSON.parse(head);
    } catch {
      whole = undefined;
    }
  }
  if (isRecord(whole) && Array.isArray(whole.messages)) {
    meta = whole;
    whole.messages.forEach((m, index) => put(m, index));
  } else {
    for (const { line, value } of jsonLines(text, path, issues)) {
      if (!isRecord(value)) {
        issues.push({ path, line, expected: "a JSON object" });
        continue;
      }
      if (typeof value.$rewindTo === "string") {
        rewinds++;
        const ids = [...messages.keys()];
        const at = ids.indexOf(value.$rewindTo);
        for (const id of at === -1 ? ids : ids.slice(at)) messages.delete(id);
      } else if (typeof value.id === "string") put(value, line);
      else if (isRecord(value.$set)) {
        if (Array.isArray(value.$set.messages)) {
          messages.clear();
          for (const m of value.$set.messages) put(m, line);
        }
        meta = { ...meta, ...value.$set };
      } else if (isGeminiSession(value)) meta = { ...meta, ...value };
      else issues.push({ path, line, expected: 'a message ("id"), "$set", "$rewindTo" or the session\'s metadata' });
    }
  }
  const b = new TraceBuilder("gemini-cli", typeof meta.sessionId === "string" ? meta.sessionId : path);
  const skipped = new Map<string, number>();
  let pending: Record<string, unknown>[] = [];
  let unnamed = false;
  let merged = 0;
  const flushResults = () => {
    // A writer may record a parallel batch's every response on each call of it: each response once, by id.
    const seen = new Set<string>();
    for (const call of pending) {
      const parts = Array.isArray(call.result) ? call.result.filter(isRecord) : [];
      const responses = parts.filter((p) => isRecord(p.functionResponse));
      if (responses.length === 0) {
        addResult(b, call.result, call.id, call.name);
        continue;
      }
      for (const p of responses) {
        const r = p.functionResponse as Record<string, unknown>;
        const id = typeof r.id === "string" ? r.id : String(call.id);
        if (seen.has(id)) continue;
        seen.add(id);
        addResult(b, r.response, r.id ?? call.id, r.name ?? call.name);
      }
    }
    pending = [];
  };
  for (const { record: m, line } of messages.values()) {
    const type = typeof m.type === "string" ? m.type : "";
    if (type === "user") {
      const parts = partsOf(m.content);
      // A newer writer records the tool results as a message: those stand for the calls' `result`.
      if (parts.some((p) => isRecord(p.functionResponse))) pending = [];
      else flushResults();
      addUser(b, parts);
    } else if (type === "gemini") {
      flushResults();
      const model = typeof m.model === "string" ? m.model : null;
      if (model === null && !unnamed) {
        unnamed = true;
        b.notes.push('a "gemini" message names no model');
      }
      b.call(model ?? UNNAMED_MODEL, instant(m.timestamp), tokensUsage(m.tokens), line);
      for (const t of Array.isArray(m.thoughts) ? m.thoughts.filter(isRecord) : []) {
        const thought = [t.subject, t.description].filter((s) => typeof s === "string").join("\n");
        if (thought !== "") b.output(b.chars(b.add({ kind: "assistant", text: thought })));
      }
      // Newer writers keep the thought parts in `content` too (`thought: true`): counted once, from `thoughts`.
      const content = textOf(partsOf(m.content).filter((p) => typeof p.text === "string" && p.thought !== true));
      if (content !== "") b.output(b.chars(b.add({ kind: "assistant", text: content })));
      const calls = Array.isArray(m.toolCalls) ? m.toolCalls.filter(isRecord) : [];
      for (const call of calls) b.toolCall(call.args, call.name, call.id);
      pending = calls.filter((c) => c.result !== undefined && c.result !== null);
      if (calls.length > 1 && !isRecord(m.tokens)) merged++;
    } else skipped.set(type || "(none)", (skipped.get(type || "(none)") ?? 0) + 1);
  }
  flushResults();
  if (meta.kind === "subagent") b.notes.push('a subagent\'s own session ("kind": "subagent")');
  if (rewinds > 0) b.notes.push(`${rewinds} rewinds ($rewindTo): the messages they dropped are left out`);
  if (merged > 0)
    b.notes.push(
      `${merged} "gemini" messages with several tool calls and no usage: an older writer may have merged several calls into one`,
    );
  if (skipped.size > 0)
    b.notes.push(
      `messages with no model input, by type: ${[...skipped.entries()]
        .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
        .map(([type, n]) => `${type} ${n}`)
        .join(", ")}`,
    );
  b.notes.push("no cost recorded: the bill check is against the recorded token counts");
  return { trace: b.finish(), issues };
}

/** A PartListUnion (a string, a part, or a list of either) as a list of parts. */
function partsOf(content: unknown): Record<string, unknown>[] {
  const list = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  return list.map((p) => (typeof p === "string" ? { text: p } : isRecord(p) ? p : { text: JSON.stringify(p) }));
}

function addUser(b: TraceBuilder, parts: Record<string, unknown>[]): void {
  const text: string[] = [];
  for (const p of parts) {
    if (isRecord(p.functionResponse)) {
      const r = p.functionResponse;
      addResult(b, r.response, r.id, r.name);
    } else if (typeof p.text === "string") text.push(p.text);
    else if (isRecord(p.inlineData)) b.add({ kind: "user", text: "[inline data]", chars: 6_400 });
    else text.push(JSON.stringify(p));
  }
  if (text.length > 0) b.add({ kind: "user", text: text.join("\n") });
}

/** A tool's result: `{output}` or `{error}` of a functionResponse, or the parts recorded on the call. */
function addResult(b: TraceBuilder, result: unknown, id: unknown, name: unknown): void {
  let text: string;
  if (Array.isArray(result) || (isRecord(result) && isRecord(result.functionResponse)))
    text = partsOf(result)
      .map((p) => (isRecord(p.functionResponse) ? responseText(p.functionResponse.response) : textOf([p])))
      .join("\n");
  else text = responseText(result);
  b.add({
    kind: "tool_output",
    text,
    tool: typeof name === "string" ? name : null,
    call_id: typeof id === "string" ? id : null,
  });
}

function responseText(response: unknown): string {
  if (isRecord(response) && typeof response.output === "string") return response.output;
  if (isRecord(response) && typeof response.error === "string") return response.error;
  return textOf(response);
}

/**
 * Gemini's usage in the trace's shape: `input` (promptTokenCount) holds the
 * cached tokens; the tool-use prompt is input too; thoughts are billed as output.
 *
 * @example
 * tokensUsage({ input: 9000, cached: 8000, output: 100, thoughts: 50, tool: 0, total: 9150 })
 * // { input: 1000, cache_read: 8000, cache_write_5m: 0, cache_write_1h: 0, output: 150 }
 */
export function tokensUsage(raw: unknown): Usage | null {
  if (!isRecord(raw) || raw.input === undefined) return null;
  const cached = count(raw.cached);
  return {
    input: Math.max(0, count(raw.input) + count(raw.tool) - cached),
    cache_read: cached,
    cache_write_5m: 0,
    cache_write_1h: 0,
    output: count(raw.output) + count(raw.thoughts),
  };
}
