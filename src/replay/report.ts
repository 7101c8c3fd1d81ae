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
import { type CostSeries, chartSvg } from "./chart";
import type { ParseIssue } from "./formats";
import type { SkippedTrace, TraceReplay } from "./run";
import type { PolicyTotal, ReplaySummary } from "./summary";

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
  /** The recorded cost: the calls' usage at the rows, else the file's own total; null where neither exists. */
  recorded_usd: number | null;
  /** The model priced, "(--model)" where the user supplied it. */
  priced_as: string;
  /** "recorded", "calibrated" or "recorded + calibrated": how keep-everything was billed. */
  basis: string;
  parent: string | null;
  /** Whether the parent session is among the sessions of the same replay (set once all are read). */
  parent_in_replay?: boolean;
  assumptions: string[];
  notes: string[];
  /** Per policy: carry saved, cache rewrites and recall hops, in dollars (detected end). */
  decomposition: Record<string, { carry_saved_usd: number; cache_rewrites_usd: number; recall_hops_usd: number }>;
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
      recorded_usd: null,
      priced_as: "",
      basis: "",
      parent: null,
      assumptions: [],
      notes: [],
      decomposition: {},
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
    recorded_usd: result.check?.recorded_usd ?? result.recorded_total_usd,
    priced_as: `${result.priced_as.model}${result.priced_as.supplied ? " (--model)" : ""}`,
    basis:
      result.basis.calibrated_calls === 0
        ? "recorded"
        : result.basis.recorded_calls === 0
          ? "calibrated"
          : "recorded + calibrated",
    parent: result.parent,
    assumptions: result.assumptions,
    notes: result.notes,
    decomposition: Object.fromEntries(result.policies.map((p) => [p.name, p.decomposition])),
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
      "carry saved",
      "cache rewrites",
      "recall hops",
      "sessions costing more",
      "verdict",
    ],
    ...summary.policies.map((p) =>
      p.name === "keep_everything"
        ? [p.name, usd(p.cost_usd), "—", "—", "—", "—", "—", "—", "—", "what happened"]
        : [
            p.name,
            usd(p.cost_usd),
            diffUsd(p),
            diffPct(p),
            `${p.recalls_detected} / ${p.stubbed}`,
            usd(p.carry_saved_usd),
            usd(p.cache_rewrites_usd),
            usd(p.recall_hops_usd),
            `${p.sessions_costing_more} of ${summary.sessions}`,
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

/** The file's name without its folders: the table stays narrow, the full path is in the details and --json. */
const shortName = (path: string) => path.split(/[\\/]/).pop() ?? path;

/**
 * The per-session table's cells: narrow enough for a laptop (the session,
 * what it cost as recorded and as modelled, how it was billed, and two
 * policies); everything else per session is in its details.
 */
export function sessionCells(rows: readonly SessionRow[], policies: readonly string[]): string[][] {
  const shown = ["gate_cache_aware", "clear_tool_uses"].filter((n) => policies.includes(n));
  return [
    [
      "session",
      "format",
      "priced as",
      "calls",
      "recorded",
      "keep-everything",
      "bill check",
      "billed from",
      ...shown.map((n) => `${n} (%)`),
    ],
    ...rows.map((r) =>
      r.skipped !== null
        ? [shortName(r.path), r.format, "—", "—", "—", "skipped", r.skipped, "", ...shown.map(() => "")]
        : [
            shortName(r.path),
            r.format,
            r.priced_as,
            String(r.calls),
            r.recorded_usd === null ? "—" : usd(r.recorded_usd),
            r.keep_usd === null ? "—" : usd(r.keep_usd),
            r.error_pct === null ? "no usage" : pct(r.error_pct, 3),
            r.basis,
            ...shown.map((n) => rangePct(r.saving_pct[n])),
          ],
    ),
  ];
}

/**
 * Links each subagent's session to its parent where the parent is in the same replay.
 *
 * @example
 * linkParents(rows).filter((r) => r.parent_in_replay).length
 */
export function linkParents(rows: SessionRow[]): SessionRow[] {
  const sessions = new Set(rows.map((r) => r.session));
  for (const r of rows) if (r.parent !== null) r.parent_in_replay = sessions.has(r.parent);
  return rows;
}

/** One session's details: where it came from, what was assumed, the parse notes, each policy's decomposition. */
export function sessionDetails(r: SessionRow): string[] {
  if (r.skipped !== null) return [`${r.path}: skipped: ${r.skipped}`];
  return [
    `${r.path} (session ${r.session}${r.parent === null ? "" : `, a subagent of ${r.parent}${r.parent_in_replay === true ? ", in this replay" : r.parent_in_replay === false ? ", not in this replay" : ""}`}): priced as ${r.priced_as}, billed from ${r.basis}`,
    ...r.assumptions.map((a) => `  assumed: ${a}`),
    ...r.notes.map((n) => `  note: ${n}`),
    ...Object.entries(r.decomposition)
      .filter(([name]) => name !== "keep_everything")
      .map(
        ([name, d]) =>
          `  ${name}: ${rangePct(r.saving_pct[name])}; carry saved ${usd(d.carry_saved_usd)}, cache rewrites ${usd(d.cache_rewrites_usd)}, recall hops ${usd(d.recall_hops_usd)}`,
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
    mode === "seed"
      ? "keep-everything check: not applicable in seed mode (no cache: the recorded bills were paid with one)"
      : c.calls === 0
        ? "keep-everything check: no call recorded its usage; sizes are calibrated estimates (see each session's factor)"
        : `keep-everything check: modelled ${usd(c.modelled_usd)} against recorded ${usd(c.recorded_usd)} over the ${int(c.calls)} calls with usage: error ${pct(c.error_pct, 3)} (calls with usage are billed from it)`,
  );
  if (summary.calibrated_sessions > 0)
    lines.push(
      `${summary.calibrated_sessions} of ${summary.sessions} sessions billed wholly or partly from calibrated estimates (no recorded usage): see "billed from"`,
    );
  if (mode === "cache_aware" && Math.abs(summary.ideal_cache_usd - summary.keep_everything_usd) > 1e-9)
    lines.push(
      `if caching were perfect: keep-everything ${usd(summary.ideal_cache_usd)} (a modelled cache that never misses nor expires; not what was paid)`,
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
  out.push("", "per session, details", ...shown.flatMap(sessionDetails));
  if (issues.length > 0)
    out.push(
      "",
      `${issues.length} unreadable lines or files (also on stderr):`,
      ...issues.slice(0, 20).map((i) => `${i.path}${i.line === null ? "" : `:${i.line}`}: expected ${i.expected}`),
    );
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
    "<h2>Per session, details</h2>",
    ...rows.map((r) => {
      const [first, ...rest] = sessionDetails(r);
      return `<details><summary>${esc(first!)}</summary><pre>${esc(rest.map((l) => l.trim()).join("\n"))}</pre></details>`;
    }),
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
    "body{font:14px/1.45 system-ui,sans-serif;margin:2rem;color:#111}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;white-space:nowrap}th{background:#f4f4f5}table#sessions{font-size:13px}table#sessions td:first-child{max-width:22rem;overflow:hidden;text-overflow:ellipsis}details{margin:.2rem 0}pre{margin:.3rem 0 .6rem 1rem;white-space:pre-wrap}figure{margin:1rem 0}svg{max-width:100%;height:auto;border:1px solid #eee}";
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>offload-gate replay</title><style>${style}</style></head><body><h1>Replay: what each policy would have cost</h1>\n${reportBody(summary, rows, series, mode)}\n</body></html>\n`;
}
