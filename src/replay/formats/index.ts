/**
 * @module replay/formats
 *
 * Which format a transcript is, said explicitly: from its content (the first
 * readable line of a JSONL file, the top-level fields of a JSON document),
 * never from a guess that could read one format as another. A file that is
 * none of them is reported with what was expected. Pure.
 */

import { AIDER_MARKER, parseAider } from "./aider";

const AIDER_RUN = new RegExp(AIDER_MARKER.source, "m");
import { parseAtif } from "./atif";
import { parseClaudeCode } from "./claude-code";
import { parseCodex } from "./codex";
import { isGeminiSession, parseGeminiCli } from "./gemini-cli";
import type { ParseResult } from "./lines";
import { OFFLOAD_LOG_MARKER, parseOffloadLog } from "./offload-log";
import { isOpenHandsEvents, parseOpenHands } from "./openhands";
import { parseMiniSweAgent, parseSweAgent } from "./swe-agent";
import { type ParseIssue, type TraceFormat, UNNAMED_MODEL } from "./trace";

export type { ParseResult } from "./lines";

const PARSERS: Record<TraceFormat, (text: string, path: string) => ParseResult> = {
  "claude-code": parseClaudeCode,
  codex: parseCodex,
  "swe-agent": parseSweAgent,
  "mini-swe-agent": parseMiniSweAgent,
  atif: parseAtif,
  openhands: parseOpenHands,
  aider: parseAider,
  "gemini-cli": parseGeminiCli,
  "offload-log": parseOffloadLog,
};

const CODEX_TYPES = new Set(["session_meta", "turn_context", "response_item", "event_msg", "compacted"]);
const CLAUDE_TYPES = new Set(["user", "assistant", "summary", "system", "file-history-snapshot"]);
// Fields every Claude Code record type carries (a new type too): a first line of any type is recognised.
const CLAUDE_KEYS = ["sessionId", "uuid", "leafUuid", "messageId"];
const isClaudeRecord = (r: Record<string, unknown>) =>
  typeof r.type === "string" && (CLAUDE_KEYS.some((k) => k in r) || (CLAUDE_TYPES.has(r.type) && "message" in r));

/** What every format looks like, for the report on a file that is none of them. */
export const EXPECTED_FORMATS =
  "a Claude Code session (.jsonl, records with type user/assistant and sessionId), a Codex rollout (.jsonl, {timestamp, type, payload}), " +
  "a SWE-agent .traj (history, trajectory), a mini-swe-agent .traj.json (messages, info), an ATIF trajectory (schema_version ATIF-v…, steps), " +
  'an OpenHands trajectory (a JSON list of events with action/observation), an aider chat history (.md, "# aider chat started at"), ' +
  `a Gemini CLI session (sessionId, projectHash, messages) or an offload-gate session log (.jsonl, "trace": "${OFFLOAD_LOG_MARKER}")`;

/**
 * The format of a transcript's text, or null.
 *
 * @example
 * detectFormat('{"timestamp":"…","type":"session_meta","payload":{}}') // "codex"
 * detectFormat('{"schema_version":"ATIF-v1.4","steps":[]}') // "atif"
 */
export function detectFormat(text: string): TraceFormat | null {
  const head = text.trimStart();
  // aider appends to one history file across runs: its marker opens a line near the top, not always the first.
  if (!head.startsWith("{") && !head.startsWith("[") && AIDER_RUN.test(head.slice(0, 65_536))) return "aider";
  if (head.startsWith("[")) {
    const whole = tryJson(head);
    return isOpenHandsEvents(whole) ? "openhands" : null;
  }
  if (head.startsWith("{")) {
    const whole = tryJson(head);
    if (whole !== undefined) return documentFormat(whole);
  }
  for (const raw of head.split("\n", 20)) {
    const value = tryJson(raw.trim());
    if (value === undefined || typeof value !== "object" || value === null) continue;
    const record = value as Record<string, unknown>;
    if (record.trace === OFFLOAD_LOG_MARKER) return "offload-log";
    if (typeof record.type === "string" && CODEX_TYPES.has(record.type) && "payload" in record) return "codex";
    if (isLegacyCodexMeta(record)) return "codex";
    if (isGeminiSession(record)) return "gemini-cli";
    if (isClaudeRecord(record)) return "claude-code";
    return null;
  }
  return null;
}

function documentFormat(doc: unknown): TraceFormat | null {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return null;
  const d = doc as Record<string, unknown>;
  // Early ATIF writers put a bare version ("1.4"): steps with a source and an agent say the rest.
  if (
    typeof d.schema_version === "string" &&
    Array.isArray(d.steps) &&
    (d.schema_version.startsWith("ATIF") || (typeof d.agent === "object" && d.agent !== null))
  )
    return "atif";
  if (Array.isArray(d.history) && ("trajectory" in d || "info" in d || isSweAgentHistory(d.history)))
    return "swe-agent";
  if (Array.isArray(d.messages) && "info" in d) return "mini-swe-agent";
  if (isGeminiSession(d)) return "gemini-cli";
  if (isOpenHandsEvents(d.trajectory)) return "openhands";
  // A one-line JSONL file parses as a document too.
  if (d.trace === OFFLOAD_LOG_MARKER) return "offload-log";
  if (typeof d.type === "string" && CODEX_TYPES.has(d.type) && "payload" in d) return "codex";
  if (isClaudeRecord(d)) return "claude-code";
  return null;
}

// An early Codex rollout's first line: the session's metadata, bare (id, timestamp, and the CLI's fields).
function isLegacyCodexMeta(r: Record<string, unknown>): boolean {
  return (
    typeof r.id === "string" &&
    typeof r.timestamp === "string" &&
    !("type" in r) &&
    ("instructions" in r || "cli_version" in r || "originator" in r || "git" in r)
  );
}

// A demonstration file holds only `history`: entries with a role and SWE-agent's own fields.
function isSweAgentHistory(history: unknown[]): boolean {
  const first = history[0];
  return (
    typeof first === "object" && first !== null && "role" in first && ("message_type" in first || "agent" in first)
  );
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What the user supplies that a transcript may lack. */
export interface TranscriptOptions {
  /** The model to price a transcript that names none (`--model`). */
  model?: string;
}

/**
 * Parses a transcript in the format given, or the one detected.
 *
 * @example
 * parseTranscript(text, "~/.codex/sessions/2026/11/01/rollout-x.jsonl").trace?.format // "codex"
 * parseTranscript("hello", "notes.txt").issues[0].expected // "a Claude Code session (…) …"
 */
export function parseTranscript(
  text: string,
  path: string,
  format?: TraceFormat,
  options: TranscriptOptions = {},
): ParseResult {
  const chosen = format ?? detectFormat(text);
  if (chosen === null) {
    const issue: ParseIssue = { path, line: null, expected: EXPECTED_FORMATS };
    return { trace: null, issues: [issue] };
  }
  const result = PARSERS[chosen](text, path);
  const trace = result.trace;
  if (trace !== null && trace.calls.length === 0) {
    result.issues.push({ path, line: null, expected: `at least one model call in this ${chosen} transcript` });
    return { trace: null, issues: result.issues };
  }
  if (trace !== null && options.model !== undefined && trace.calls.some((c) => c.model === UNNAMED_MODEL)) {
    for (const call of trace.calls) if (call.model === UNNAMED_MODEL) call.model = options.model;
    trace.model_supplied = true;
    trace.notes.push(`priced as ${options.model} (--model): the transcript names no model`);
  }
  return result;
}

// The trace every format parses into, for the rest of replay and its callers.
export * from "./trace";
// Anthropic's usage object in the trace's shape, for the live proxy (src/proxy) that reads the same wire usage.
export { usageOf as anthropicUsage } from "./claude-code";
