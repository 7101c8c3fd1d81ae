/**
 * @module scripts/replay/cli
 *
 * `npm run replay -- PATH... [options]`: replays transcripts (files, or
 * folders walked for every file in them) under every policy and prints the
 * policy table, per tool and per session (docs/replay.md). Every file under
 * a path appears in the report: replayed, or not with the reason (not a
 * transcript of any format replay reads, a model without a pricing row, no
 * model call, unreadable). Files are read one at a time and only their
 * totals kept, so a folder of 10,000 sessions never needs them all in
 * memory; progress goes to stderr. The options are in USAGE (`--help`).
 *
 * @example
 * await main(["~/.claude/projects", "--html", "replay.html"], nodeIo()) // 0
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  CostSeries,
  detectFormat,
  linkParents,
  parseTranscript,
  priceBook,
  replayTrace,
  ReplayTotals,
  reportHtml,
  reportText,
  sessionRow,
  TRACE_FORMATS,
  type ParseIssue,
  type SeedRow,
  type SessionRow,
  type TraceFormat,
} from "../../src/replay";
import { type FileStatus, filesHtml, filesSection, skipReason } from "./files";
import { MAX_LINE_BYTES, readTranscript } from "./read";

/** Where the CLI writes: injected so the tests run it in-process. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress then rewrites one line). */
  tty: boolean;
}

/** What `--help` prints: the usage, every option, examples. */
export const USAGE = `usage: npm run replay -- PATH... [options]

Replays agent transcripts (files, or folders walked for every file in them) under every context
policy and prints what each would have cost, checked against the recorded bills (docs/replay.md).
Formats, detected from each file's content: ${TRACE_FORMATS.join(", ")}.

options:
  --json            everything as one JSON document on stdout (every file's status among it)
  --html FILE       also write a self-contained page with the chart and the tables to FILE
  --priors          per-tool learned priors, the shape POST /v1/admin/learning/import takes
  --pricing FILE    a pricing seed (default: the repository's pricing.seed.json); repeatable, later files add rows
  --mode MODE       cache_aware (default: billed with the provider's cache) or seed (no cache)
  --format FORMAT   read every file as FORMAT instead of detecting it (one of the formats above)
  --model NAME      price a transcript that names no model as NAME (the report says so)
  --sessions N      rows of the per-session table (default 20)
  -h, --help        this text

exit status: 0 when at least one file replayed, 1 when none did, 2 on a usage error or a missing path.

examples:
  npm run replay -- ~/.claude/projects --html replay.html
  npm run replay -- ~/.codex/sessions --model gpt-5     # a rollout that names no model`;
const DEFAULT_SEED = resolve(import.meta.dirname, "../../pricing.seed.json");
/** Every file under the paths, one at a time: a file as given, a folder walked in name order (none left out). */
export function* transcripts(paths: readonly string[], issues: ParseIssue[]): Generator<string> {
  for (const path of paths) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      issues.push({ path, line: null, expected: "a file or a folder that exists" });
      continue;
    }
    if (!stat.isDirectory()) {
      yield path;
      continue;
    }
    const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) yield* transcripts([child], issues);
      else yield child;
    }
  }
}

/**
 * Runs the CLI; returns the exit code (0 done, 1 nothing replayed, 2 usage).
 *
 * @example
 * await main(["runs/"], { out: console.log, err: console.error, tty: false })
 */
export async function main(argv: string[], io: Io): Promise<number> {
  // biome-ignore lint/suspicious/noImplicitAnyLet: parseArgs infers the type from its options; the try is only around the call
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: "boolean" },
        html: { type: "string" },
        priors: { type: "boolean" },
        pricing: { type: "string", multiple: true },
        mode: { type: "string" },
        format: { type: "string" },
        model: { type: "string" },
        sessions: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = args;
  if (values.help === true) {
    io.out(USAGE);
    return 0;
  }
  const mode = values.mode ?? "cache_aware";
  if (positionals.length === 0 || (mode !== "cache_aware" && mode !== "seed")) {
    io.err(
      positionals.length === 0
        ? `no PATH given\n${USAGE}`
        : `--mode must be cache_aware or seed, not ${JSON.stringify(mode)}`,
    );
    return 2;
  }
  if (values.format !== undefined && !(TRACE_FORMATS as readonly string[]).includes(values.format)) {
    io.err(`--format must be one of ${TRACE_FORMATS.join(", ")}, not ${JSON.stringify(values.format)}`);
    return 2;
  }
  const missing = positionals.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    for (const path of missing) io.err(`replay: no such file or folder: ${path}`);
    return 2;
  }
  // Repeatable: each later file adds rows or replaces rows of the same name.
  const models: Record<string, SeedRow> = {};
  for (const seedPath of values.pricing ?? [DEFAULT_SEED]) {
    try {
      Object.assign(models, (JSON.parse(readFileSync(seedPath, "utf8")) as { models: Record<string, SeedRow> }).models);
    } catch (error) {
      io.err(`cannot read the pricing seed ${seedPath}: ${error instanceof Error ? error.message : String(error)}`);
      return 2;
    }
  }
  const prices = priceBook(models);
  const totals = new ReplayTotals();
  const series = new CostSeries();
  const rows: SessionRow[] = [];
  const sessions: unknown[] = [];
  const issues: ParseIssue[] = [];
  const statuses: FileStatus[] = [];
  let files = 0;
  let lastProgress = 0;
  for (const path of transcripts(positionals, issues)) {
    files++;
    const before = issues.length;
    let text: string;
    try {
      const read = await readTranscript(path, {
        onLines: (lines) => {
          const now = Date.now();
          if (now - lastProgress < 1_000) return;
          lastProgress = now;
          const line = `replay: reading ${path}: ${lines.toLocaleString("en-US")} lines`;
          io.err(io.tty ? `\r${line}` : line);
        },
      });
      text = read.text;
      if (read.lines >= 100_000) io.err(`replay: ${path}: ${read.lines.toLocaleString("en-US")} lines read; replaying`);
      for (const o of read.oversized)
        issues.push({
          path,
          line: o.line,
          expected: `a line of at most ${MAX_LINE_BYTES / 1024 / 1024} MB (this one is ${(o.bytes / 1024 / 1024).toFixed(0)} MB: skipped)`,
        });
    } catch (error) {
      const issue = {
        path,
        line: null,
        expected: `a readable file (${error instanceof Error ? error.message : String(error)})`,
      };
      issues.push(issue);
      io.err(`${path}: expected ${issue.expected}`);
      statuses.push({ path, format: null, status: "skipped", reason: `unreadable: ${issue.expected}` });
      continue;
    }
    const { trace, issues: found } = parseTranscript(text, path, values.format as TraceFormat | undefined, {
      model: values.model,
    });
    // A file that gave no trace is still named with its format where it has one (a session with no call).
    const format = trace === null ? ((values.format as TraceFormat | undefined) ?? detectFormat(text)) : trace.format;
    text = "";
    issues.push(...found);
    for (const issue of issues.slice(before))
      io.err(`${issue.path}${issue.line === null ? "" : `:${issue.line}`}: expected ${issue.expected}`);
    if (trace === null) {
      const reason = skipReason(found);
      statuses.push({ path, format, status: "skipped", reason });
      io.err(`${path}: skipped: ${reason}`);
      continue;
    }
    const result = replayTrace(trace, prices, undefined, mode);
    totals.add(result);
    rows.push(sessionRow(path, result));
    statuses.push({
      path,
      format: trace.format,
      status: "skipped" in result ? "skipped" : "replayed",
      reason: "skipped" in result ? result.skipped : null,
    });
    if ("skipped" in result) io.err(`${path}: skipped: ${result.skipped}`);
    else {
      series.add(result);
      if (values.json === true)
        sessions.push({ path, ...result, policies: result.policies.map(({ cumulative: _c, ...p }) => p) });
    }
    const now = Date.now();
    if (now - lastProgress > 1_000) {
      lastProgress = now;
      const line = `replay: ${files} files read, ${rows.length} sessions, ${totals.summary().calls} calls`;
      io.err(io.tty ? `\r${line}` : line);
    }
  }
  if (io.tty && lastProgress > 0) io.err("");
  linkParents(rows);
  const summary = totals.summary();
  if (values.html !== undefined)
    writeFileSync(
      values.html,
      reportHtml(summary, rows, series, mode).replace("</body>", `${filesHtml(statuses)}</body>`),
    );
  if (values.priors === true) io.out(JSON.stringify(totals.priorsDocument(), null, 2));
  else if (values.json === true)
    io.out(
      JSON.stringify(
        { mode, summary, sessions, skipped: rows.filter((r) => r.skipped !== null), files: statuses, issues },
        null,
        2,
      ),
    );
  else
    io.out(
      [reportText(summary, rows, issues, mode, Number(values.sessions ?? 20)), "", ...filesSection(statuses)].join(
        "\n",
      ),
    );
  if (values.priors === true || values.json === true) for (const line of filesSection(statuses)) io.err(line);
  return statuses.some((f) => f.status === "replayed") ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const io: Io = {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(t.startsWith("\r") ? t : `${t}\n`),
    tty: process.stderr.isTTY === true,
  };
  process.exitCode = await main(process.argv.slice(2), io);
}
