/**
 * @module replay/report
 *
 * What the user sees, as text (the CLI) and as a self-contained HTML page
 * (`--html`, and the console's replay page): per policy the cost, the
 * difference from keep-everything in dollars and percent over its range
 * (detected recalls … every stubbed output recalled once), recalls and the
 * cache writes it caused; the same per tool and per session; the check
 * against the recorded bills. Pure.
 */
import { chartSvg, type CostSeries } from "./chart";
import type { PolicyTotal, ReplaySummary } from "./summary";
import type { SkippedTrace, TraceReplay } from "./run";
import type { ParseIssue } from "./trace";

/** One session's line in the per-session table. */
export interface SessionRow {
  path: string;
  session: string;
  format: string;
  calls: number;
  keep_usd: number | null;
  error_pct: number | null;
  factor: number | null;
  method: string;
  /** Per policy: [pessimistic, detected] saving in percent. */
  saving_pct: Record<string, [number, number]>;
  skipped: string | null;
}

/**
 * A session's row from its replay.
 *
 * @example
 * sessionRow("logs/a.jsonl", result).error_pct // 0.0018
 */
export function sessionRow(path: string, result: TraceReplay | SkippedTrace): SessionRow {
  if ("skipped" in result)
    return {
      path,
      session: result.session,
      format: result.format,
      calls: 0,
      keep_usd: null,
      error_pct: null,
      factor: null,
      method: "",
      saving_pct: {},
      skipped: result.skipped,
    };
  return {
    path,
    session: result.session,
    format: result.format,
    calls: result.calls,
    keep_usd: result.policies.find((p) => p.name === "keep_everything")?.cost_usd ?? null,
    error_pct: result.check?.error_pct ?? null,
    factor: result.calibration.factor,
    method: result.calibration.method,
    saving_pct: Object.fromEntries(result.policies.map((p) => [p.name, p.saving_pct])),
    skipped: null,
  };
}

const usd = (v: number) =>
  `${v < 0 ? "−" : ""}$${Math.abs(v) < 10 ? Math.abs(v).toFixed(4) : Math.abs(v).toLocaleString("en-US", { maximumFractionDigits: 2, minimumFractionDigits: 2 })}`;
const signedUsd = (v: number) => (v > 0 ? `+${usd(v)}` : usd(v));
const pct = (v: number, digits = 1) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${Math.abs(v).toFixed(digits)}%`;
const int = (v: number) => `${v < 0 ? "−" : ""}${Math.round(Math.abs(v)).toLocaleString("en-US")}`;

/** The difference from keep-everything, low to high: the detected end is the lower cost. */
const diffUsd = (p: PolicyTotal) => `${signedUsd(-p.saving_usd[1])} … ${signedUsd(-p.saving_usd[0])}`;
const diffPct = (p: PolicyTotal) => `${pct(-p.saving_pct[1])} … ${pct(-p.saving_pct[0])}`;

function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd(),
  );
}

/** The policy table's cells, header first. */
export function policyCells(summary: ReplaySummary): string[][] {
  return [
    [
      "policy",
      "cost",
      "vs keep-everything ($)",
      "(%)",
      "recalls (detected / pessimistic)",
      "cache writes caused (tokens)",
      "verdict",
    ],
    ...summary.policies.map((p) =>
      p.name === "keep_everything"
        ? [p.name, usd(p.cost_usd), "—", "—", "—", "—", "what happened"]
        : [
            p.name,
            usd(p.cost_usd),
            diffUsd(p),
            diffPct(p),
            `${p.recalls_detected} / ${p.stubbed}`,
            int(p.cache_writes_caused_tokens),
            p.verdict,
          ],
    ),
  ];
}

/** The per-tool table's cells: outputs, tokens, recalled, and stubbed / recalled under each policy. */
export function toolCells(summary: ReplaySummary, limit = 15): string[][] {
  const names = summary.policies.map((p) => p.name).filter((n) => n !== "keep_everything");
  const tools = Object.entries(summary.tools)
    .sort((a, b) => b[1].tokens - a[1].tokens)
    .slice(0, limit);
  return [
    ["tool", "outputs", "tokens", "recalled", ...names.map((n) => `${n} stub/rec`)],
    ...tools.map(([tool, t]) => [
      tool,
      int(t.outputs),
      int(t.tokens),
      `${t.outputs === 0 ? 0 : Math.round((100 * t.recalled) / t.outputs)}%`,
      ...names.map((n) => `${t.policies[n]?.stubbed ?? 0}/${t.policies[n]?.recalls ?? 0}`),
    ]),
  ];
}

/** The per-session table's cells. */
export function sessionCells(rows: readonly SessionRow[], policies: readonly string[]): string[][] {
  const names = policies.filter((n) => n !== "keep_everything");
  return [
    ["session", "format", "calls", "keep-everything", "bill error", "factor", ...names.map((n) => `${n} (%)`)],
    ...rows.map((r) =>
      r.skipped !== null
        ? [r.path, r.format, "—", "skipped", r.skipped, "", ...names.map(() => "")]
        : [
            r.path,
            r.format,
            String(r.calls),
            r.keep_usd === null ? "—" : usd(r.keep_usd),
            r.error_pct === null ? "no usage" : pct(r.error_pct, 3),
            `${r.factor?.toFixed(2)} (${r.method})`,
            ...names.map((n) => rangePct(r.saving_pct[n])),
          ],
    ),
  ];
}

const rangePct = (range: [number, number] | undefined) =>
  range === undefined ? "" : `${pct(-range[1])} … ${pct(-range[0])}`;

/** The header lines: what was replayed and how close the bill model came to the recorded bills. */
export function headline(summary: ReplaySummary, mode: string): string[] {
  const lines = [
    `replay: ${summary.sessions} sessions, ${int(summary.calls)} calls (${summary.skipped} skipped); pricing: ${mode}${mode === "cache_aware" ? " (the default)" : ", no cache"}`,
  ];
  const c = summary.check;
  lines.push(
    c.calls === 0
      ? "keep-everything check: no call recorded its usage; sizes are calibrated estimates (see each session's factor)"
      : `keep-everything check: modelled ${usd(c.modelled_usd)} against recorded ${usd(c.recorded_usd)} over the ${int(c.calls)} calls with usage: error ${pct(c.error_pct, 3)}`,
  );
  lines.push(
    'differences read detected recalls … every stubbed output recalled once; a policy "saves" only when both ends do',
  );
  return lines;
}

/**
 * Each gate policy's pre-filter, under the table: the seed's threshold, or
 * cache_aware's economic one and its floor, and the plan's cadence.
 *
 * @example
 * preFilterLines(summary) // ["pre-filters: gate_seed 10,000 tokens; gate_cache_aware economic (floor none); …"]
 */
export function preFilterLines(summary: ReplaySummary): string[] {
  const parts = summary.policies.flatMap(({ name, params: p }) => {
    if (typeof p.threshold === "number" && name.startsWith("gate")) return [`${name} ${int(p.threshold)} tokens`];
    if (p.pre_filter !== "economic") return [];
    const floor = typeof p.floor === "number" ? `${int(p.floor)} tokens` : "none";
    const cadence = p.cadence === undefined ? "" : `, asked every ${p.every} calls or at the paying batch`;
    return [`${name} economic (floor ${floor}${cadence})`];
  });
  return parts.length === 0 ? [] : [`pre-filters: ${parts.join("; ")}`];
}

/**
 * The whole text report.
 *
 * @example
 * reportText(totals.summary(), rows, issues, "cache_aware").split("\n")[0] // "replay: 6 sessions, 180 calls (0 skipped); …"
 */
export function reportText(
  summary: ReplaySummary,
  rows: readonly SessionRow[],
  issues: readonly ParseIssue[],
  mode: string,
  sessionLimit = 20,
): string {
  const out = [
    ...headline(summary, mode),
    "",
    ...columns(policyCells(summary)),
    ...preFilterLines(summary),
    "",
    "per tool",
    ...columns(toolCells(summary)),
  ];
  const shown = rows.slice(0, sessionLimit);
  out.push(
    "",
    `per session${rows.length > shown.length ? ` (first ${shown.length} of ${rows.length}; --json has all)` : ""}`,
    ...columns(
      sessionCells(
        shown,
        summary.policies.map((p) => p.name),
      ),
    ),
  );
  if (issues.length > 0) out.push("", `${issues.length} unreadable lines or files (also on stderr)`);
  return out.join("\n");
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** Cells as an HTML table. */
export function htmlTable(cells: string[][], id: string): string {
  const [head, ...body] = cells;
  return `<table id="${id}"><thead><tr>${head!.map((c) => `<th>${esc(c)}</th>`).join("")}</tr></thead><tbody>${body.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
}

/** The report's body as HTML: headline, chart, tables. */
export function reportBody(
  summary: ReplaySummary,
  rows: readonly SessionRow[],
  series: CostSeries,
  mode: string,
): string {
  return [
    ...headline(summary, mode).map((l) => `<p>${esc(l)}</p>`),
    `<figure>${chartSvg(series)}<figcaption>Cumulative cost per call under each policy (detected recalls charged at their call).</figcaption></figure>`,
    "<h2>Policies</h2>",
    htmlTable(policyCells(summary), "policies"),
    "<h2>Per tool</h2>",
    htmlTable(toolCells(summary), "tools"),
    "<h2>Per session</h2>",
    htmlTable(
      sessionCells(
        rows,
        summary.policies.map((p) => p.name),
      ),
      "sessions",
    ),
  ].join("\n");
}

/**
 * A self-contained page: no script, no external asset.
 *
 * @example
 * reportHtml(summary, rows, series, "cache_aware").startsWith("<!doctype html>") // true
 */
export function reportHtml(
  summary: ReplaySummary,
  rows: readonly SessionRow[],
  series: CostSeries,
  mode: string,
): string {
  const style =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#111}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;white-space:nowrap}th{background:#f4f4f5}figure{margin:1rem 0}svg{max-width:100%;height:auto;border:1px solid #eee}";
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>offload-gate replay</title><style>${style}</style></head><body><h1>Replay: what each policy would have cost</h1>\n${reportBody(summary, rows, series, mode)}\n</body></html>\n`;
}
