/**
 * The per-tool verdicts of ledger-v2.md §1–§2 and the tenant-wide figure
 * that combines them. Each tool's sessions, split by that tool's own arm,
 * run through the confidence sequence of ./sequence.ts. Pure.
 */
import type { Verdict } from "./report";
import { confidenceSequence, SEQUENCE_ALPHA, type SequenceResult } from "./sequence";
import type { ToolSessionRow } from "./types";

/** Report order: when the bill was reported, ties by session id (ledger-v2.md §2). */
function inReportOrder(rows: readonly ToolSessionRow[]): ToolSessionRow[] {
  return [...rows].sort((a, b) => a.at - b.at || (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0));
}

/** The rows of each tool, each list in report order. */
export function rowsByTool(rows: readonly ToolSessionRow[]): Map<string, ToolSessionRow[]> {
  const tools = new Map<string, ToolSessionRow[]>();
  for (const row of inReportOrder(rows)) {
    const list = tools.get(row.tool_name);
    if (list === undefined) tools.set(row.tool_name, [row]);
    else list.push(row);
  }
  return tools;
}

/**
 * Every tool's verdict on treatment − holdout per session, from the
 * confidence sequence at π = 1 − holdoutFraction. A session counts for a
 * tool when it had a decision about it; its arm is that tool's.
 *
 * @example
 * const verdicts = toolVerdicts(await gatherToolSessions(...).rows, 0.2);
 * verdicts.get("read_file")?.verdict // "losing" | "saving" | "inconclusive"
 */
export function toolVerdicts(rows: readonly ToolSessionRow[], holdoutFraction: number, alpha = SEQUENCE_ALPHA): Map<string, SequenceResult> {
  const verdicts = new Map<string, SequenceResult>();
  for (const [tool, list] of rowsByTool(rows)) verdicts.set(tool, confidenceSequence(list, 1 - holdoutFraction, alpha));
  return verdicts;
}

/** The tenant-wide figure (ledger-v2.md §1): each tool's effect weighted by the share of sessions it appears in. */
export interface TenantVerdict {
  /** Tools combined (K), and the level each tool's bounds were taken at (α ÷ K). */
  tools: number;
  alpha_per_tool: number | null;
  /** Σ share × estimate: treatment − holdout per session, over every session with a bill. */
  estimate: number | null;
  /** Σ share × bound, each tool's at α ÷ K: holds for every tool at once. */
  interval: [number, number] | null;
  verdict: Verdict;
  /** Why the verdict is withheld although an interval exists: some tool's own verdict is withheld. */
  withheld: "too_few_sessions" | "zero_spread" | null;
}

/**
 * The tenant-wide combination: Σ_k share_k · ψ̄_k, its interval the same sum
 * of each tool's confidence-sequence bounds at α ÷ K (Bonferroni over the K
 * tools). `sessions` is every session with a bill in the window (a session
 * without a decision adds nothing but its weight). Withheld while any tool's
 * own verdict is: its effect is in the sum, so its uncertainty must be too.
 *
 * @example
 * tenantVerdict(rows, 0.2, 1_000) // { tools: 2, alpha_per_tool: 0.025, estimate: -0.08, interval: [...], verdict: "saving", withheld: null }
 */
export function tenantVerdict(rows: readonly ToolSessionRow[], holdoutFraction: number, sessions: number, alpha = SEQUENCE_ALPHA): TenantVerdict {
  const tools = rowsByTool(rows);
  const k = tools.size;
  const none: TenantVerdict = { tools: k, alpha_per_tool: k > 0 ? alpha / k : null, estimate: null, interval: null, verdict: "inconclusive", withheld: null };
  if (k === 0 || sessions <= 0) return none;
  let estimate = 0;
  let lo = 0;
  let hi = 0;
  let withheld: TenantVerdict["withheld"] = null;
  for (const list of tools.values()) {
    const share = Math.min(1, list.length / sessions);
    const seq = confidenceSequence(list, 1 - holdoutFraction, alpha / k);
    if (seq.interval === null || seq.estimate === null) return { ...none, withheld: "too_few_sessions" };
    estimate += share * seq.estimate;
    lo += share * seq.interval[0];
    hi += share * seq.interval[1];
    if (seq.withheld !== null && withheld === null) withheld = seq.withheld;
  }
  const interval: [number, number] = [lo, hi];
  const verdict: Verdict = withheld !== null ? "inconclusive" : lo > 0 ? "losing" : hi < 0 ? "saving" : "inconclusive";
  return { tools: k, alpha_per_tool: alpha / k, estimate, interval, verdict, withheld };
}
