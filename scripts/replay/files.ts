/**
 * @module scripts/replay/files
 *
 * Every file a replay was given, and what became of it: replayed, or not
 * with the reason a user can act on (docs/replay.md § Running). Nothing
 * under a path is left out of the report in silence.
 *
 * @example
 * filesSection([{ path: "a.md", format: null, status: "skipped", reason: "not a transcript…" }])
 */
import { EXPECTED_FORMATS, type ParseIssue, TRACE_FORMATS, type TraceFormat } from "../../src/replay";

/** One file under the paths given, and what became of it. */
export interface FileStatus {
  path: string;
  format: TraceFormat | null;
  status: "replayed" | "skipped";
  /** Why it was not replayed; null when it was. */
  reason: string | null;
}

/** The reason for a file that is none of the formats: every format tried, named. */
export const UNKNOWN_FORMAT = `not a transcript of any format replay reads (tried ${TRACE_FORMATS.join(", ")})`;

/**
 * Why a file gave no trace, from the whole-file issues its parse reported.
 *
 * @example
 * skipReason([{ path: "a.md", line: null, expected: EXPECTED_FORMATS }]) // UNKNOWN_FORMAT
 */
export function skipReason(issues: readonly ParseIssue[]): string {
  const whole = issues.filter((i) => i.line === null);
  const last = whole[whole.length - 1];
  if (last === undefined)
    return issues.length > 0
      ? `nothing readable (${issues.length} unreadable lines, the first at line ${issues[0]!.line})`
      : "nothing readable";
  if (last.expected === EXPECTED_FORMATS) return UNKNOWN_FORMAT;
  if (last.expected.startsWith("at least one model call")) return `no model call (expected ${last.expected})`;
  return `expected ${last.expected}`;
}

/**
 * The report's section on the files: how many were read and replayed, and
 * every file not replayed with its reason (all of them: the list is the point).
 *
 * @example
 * filesSection(statuses)[0] // "files: 4 read, 3 replayed, 1 not replayed"
 */
export function filesSection(files: readonly FileStatus[]): string[] {
  const skipped = files.filter((f) => f.status === "skipped");
  const lines = [
    `files: ${files.length} read, ${files.length - skipped.length} replayed, ${skipped.length} not replayed`,
  ];
  for (const f of skipped) lines.push(`  ${f.path}${f.format === null ? "" : ` (${f.format})`}: ${f.reason}`);
  if (files.length > 0 && skipped.length === files.length) lines.push("nothing was replayed: exit status 1");
  return lines;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * The files section as HTML, for the page `--html` writes: the same lines, every file not replayed named.
 *
 * @example
 * filesHtml(statuses).startsWith("<h2>Files</h2>") // true
 */
export function filesHtml(files: readonly FileStatus[]): string {
  const [head, ...rest] = filesSection(files);
  return `<h2>Files</h2><p>${escapeHtml(head ?? "")}</p>${rest.length === 0 ? "" : `<pre>${escapeHtml(rest.map((l) => l.trim()).join("\n"))}</pre>`}`;
}
