/**
 * @module replay/formats/offload-log
 *
 * The clients' own session log (docs/replay.md § The session log): one JSON
 * object per model call, `"trace": "offload-gate/1"`, with `session`,
 * `model`, `timestamp`, the call's whole `input` as parts (`kind`, `tool`,
 * `call_id`, `chars`, `hash`, optional `text`), `output_chars` and the
 * provider's `usage` in the trace's own shape (`input`, `cache_read`,
 * `cache_write_5m`, `cache_write_1h`, `output`). A part seen before (same
 * kind and hash) is the same part. Pure.
 */

import { jsonLines, type ParseResult } from "./lines";
import { count, hashText, instant, isRecord, type ParseIssue, type PartKind, TraceBuilder, type Usage } from "./trace";

/** The marker every line of the log carries. */
export const OFFLOAD_LOG_MARKER = "offload-gate/1";

const KINDS = new Set<PartKind>(["system", "user", "assistant", "tool_call", "tool_output"]);

/**
 * Parses one session log.
 *
 * @example
 * parseOffloadLog('{"trace":"offload-gate/1","session":"s","model":"gpt-5","timestamp":"2026-11-01T10:00:00Z","input":[{"kind":"user","chars":40,"hash":"a1"}]}', "s.jsonl").trace?.calls.length // 1
 */
export function parseOffloadLog(text: string, path: string): ParseResult {
  const issues: ParseIssue[] = [];
  const b = new TraceBuilder("offload-log", "");
  const seen = new Map<string, number>();
  for (const { line, value } of jsonLines(text, path, issues)) {
    if (
      !isRecord(value) ||
      value.trace !== OFFLOAD_LOG_MARKER ||
      typeof value.model !== "string" ||
      !Array.isArray(value.input)
    ) {
      issues.push({
        path,
        line,
        expected: `a call object with "trace": "${OFFLOAD_LOG_MARKER}", a string "model" and an "input" list`,
      });
      continue;
    }
    if (b.session === "" && typeof value.session === "string") b.session = value.session;
    const ids: number[] = [];
    let bad = false;
    for (const part of value.input) {
      if (
        !isRecord(part) ||
        typeof part.kind !== "string" ||
        !KINDS.has(part.kind as PartKind) ||
        typeof part.chars !== "number" ||
        part.chars < 0
      ) {
        bad = true;
        break;
      }
      const text = typeof part.text === "string" ? part.text : null;
      const hash = typeof part.hash === "string" ? part.hash : (text ?? `${part.chars}`);
      const key = `${part.kind}\u0000${hash}`;
      let id = seen.get(key);
      if (id === undefined) {
        b.setHistory(ids.slice());
        id = b.add({
          kind: part.kind as PartKind,
          text,
          chars: part.chars,
          hash: hashText(key),
          tool: typeof part.tool === "string" ? part.tool : null,
          call_id: typeof part.call_id === "string" ? part.call_id : null,
        });
        seen.set(key, id);
      }
      ids.push(id);
    }
    if (bad) {
      issues.push({
        path,
        line,
        expected:
          'each input part an object with "kind" (system, user, assistant, tool_call, tool_output) and "chars" ≥ 0',
      });
      continue;
    }
    b.setHistory(ids);
    b.call(value.model, instant(value.timestamp), logUsage(value.usage), line);
    b.output(count(value.output_chars));
  }
  if (b.session === "") b.session = path;
  return { trace: b.finish(), issues };
}

function logUsage(raw: unknown): Usage | null {
  if (!isRecord(raw)) return null;
  return {
    input: count(raw.input),
    cache_read: count(raw.cache_read),
    cache_write_5m: count(raw.cache_write_5m),
    cache_write_1h: count(raw.cache_write_1h),
    output: count(raw.output),
  };
}
