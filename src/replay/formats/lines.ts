/**
 * @module replay/formats/lines
 *
 * What every parser returns, and the JSONL reader they share: each line
 * parsed on its own, a line that is not JSON reported by number and
 * skipped, never stopping the rest. Pure.
 */
import { isRecord, type ParseIssue, type Trace } from "./trace";

/** A parser's answer: the trace (null when nothing usable was found) and what could not be read. */
export interface ParseResult {
  trace: Trace | null;
  issues: ParseIssue[];
}

/**
 * The JSON value of each non-blank line, with its 1-based number; a broken
 * line goes to `issues`.
 *
 * @example
 * [...jsonLines('{"a":1}\nnot json\n', "f.jsonl", issues)] // [{ line: 1, value: { a: 1 } }]; issues: line 2
 */
export function* jsonLines(
  text: string,
  path: string,
  issues: ParseIssue[],
): Generator<{ line: number; value: unknown }> {
  let start = 0;
  let line = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    line++;
    const raw = text.slice(start, end).trim();
    start = end + 1;
    if (raw === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      issues.push({ path, line, expected: "one JSON object on the line" });
      continue;
    }
    yield { line, value };
  }
}

/**
 * The file parsed as one JSON document, or null with the issue recorded.
 *
 * @example
 * jsonDocument("{", "x.traj", issues) // null; issues: "a JSON document"
 */
export function jsonDocument(text: string, path: string, issues: ParseIssue[]): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    issues.push({
      path,
      line: null,
      expected: `a JSON document (${error instanceof Error ? error.message : "unreadable"})`,
    });
    return null;
  }
}

/**
 * A JSON document whose field `key` is a list (a trajectory's steps, history
 * or messages), with the issues found reading it: `doc` is null, and an
 * issue says `expected`, where the file is not such a document.
 *
 * @example
 * listDocument('{"steps":[]}', "t.json", "steps", 'an ATIF object with a "steps" list').list // []
 */
export function listDocument(
  text: string,
  path: string,
  key: string,
  expected: string,
): { doc: Record<string, unknown> | null; list: unknown[]; issues: ParseIssue[] } {
  const issues: ParseIssue[] = [];
  const doc = jsonDocument(text, path, issues);
  if (isRecord(doc) && Array.isArray(doc[key])) return { doc, list: doc[key], issues };
  if (doc !== null) issues.push({ path, line: null, expected });
  return { doc: null, list: [], issues };
}
