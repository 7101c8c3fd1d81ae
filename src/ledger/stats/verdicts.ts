/**
 * The per-tool verdicts of docs/design/ledger.md §2 and §4 and the tenant-wide figure
 * that combines them. Each tool's sessions, split by that tool's own arm,
 * run through the confidence sequence of ./sequence.ts. Each takes the
 * pairs as rows or packed per tool (./pairs.ts: what the report reads).
 * Pure.
 */

import type { ToolSessionRow } from "../model";
import { packRows, type ToolPairList } from "./pairs";
import type { Verdict } from "./report";
import { packedSequence, SEQUENCE_ALPHA, type SequenceResult } from "./sequence";
import { type Moments, mean, welch } from "./stats";

/** Report order: when the bill was reported, ties by session id (docs/design/ledger.md §4.2). */
function inReportOrder(rows: readonly ToolSessionRow[]): ToolSessionRow[] {
  return [...rows].sort(
    (a, b) => a.at - b.at || (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0),
  );
}

/**
 * The rows of each tool, each list in report order.
 *
 * @example
 * rowsByTool(rows).get("grep") // grep's (session, tool) rows, by `at` then session id
 */
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
export function toolVerdicts(
  rows: readonly ToolSessionRow[] | readonly ToolPairList[],
  holdoutFraction: number,
  alpha = SEQUENCE_ALPHA,
): Map<string, SequenceResult> {
  const verdicts = new Map<string, SequenceResult>();
  for (const list of packed(rows))
    verdicts.set(list.tool_name, packedSequence(list.held, list.cost, 1 - holdoutFraction, alpha));
  return verdicts;
}

/** Rows packed per tool; packed lists as they are. */
function packed(pairs: readonly ToolSessionRow[] | readonly ToolPairList[]): readonly ToolPairList[] {
  const first = pairs[0];
  return first === undefined || "ids" in first
    ? (pairs as readonly ToolPairList[])
    : packRows(pairs as readonly ToolSessionRow[]);
}

/** The tenant-wide figure (docs/design/ledger.md §4.5): each tool's effect weighted by the share of sessions it appears in. */
export interface TenantVerdict {
  /** Tools combined (K), and the level each tool's bounds were taken at (α ÷ K). */
  tools: number;
  alpha_per_tool: number | null;
  /** Σ share × estimate: treatment − holdout per session, over every billed session with a decision. */
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
 * tools). `sessions` is every session with a bill in the window and a
 * decision (decidedSessions: a bill alone would only dilute each share). Withheld while any tool's
 * own verdict is: its effect is in the sum, so its uncertainty must be too.
 *
 * @example
 * tenantVerdict(rows, 0.2, 1_000) // { tools: 2, alpha_per_tool: 0.025, estimate: -0.08, interval: [...], verdict: "saving", withheld: null }
 */
export function tenantVerdict(
  rows: readonly ToolSessionRow[] | readonly ToolPairList[],
  holdoutFraction: number,
  sessions: number,
  alpha = SEQUENCE_ALPHA,
): TenantVerdict {
  const tools = packed(rows);
  const k = tools.length;
  const none: TenantVerdict = {
    tools: k,
    alpha_per_tool: k > 0 ? alpha / k : null,
    estimate: null,
    interval: null,
    verdict: "inconclusive",
    withheld: null,
  };
  if (k === 0 || sessions <= 0) return none;
  let estimate = 0;
  let lo = 0;
  let hi = 0;
  let withheld: TenantVerdict["withheld"] = null;
  for (const list of tools) {
    const share = Math.min(1, list.at.length / sessions);
    const seq = packedSequence(list.held, list.cost, 1 - holdoutFraction, alpha / k);
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

/** Count, sum and sum of squares of the costs of one arm's pairs (held 1 or 0), in order. */
function momentsOf(list: ToolPairList, held: number): Moments {
  let [n, sum, sumsq] = [0, 0, 0];
  for (let i = 0; i < list.at.length; i++) {
    if (list.held[i] !== held) continue;
    const cost = list.cost[i] as number;
    n++;
    sum += cost;
    sumsq += cost * cost;
  }
  return { n, sum, sumsq };
}

/**
 * The sessions the holdout counts: each session in the pairs once (a
 * session bill with no decision about any tool of the window's has no pair,
 * so it adds nothing, not even weight), their count and cost moments. The
 * pairs already hold each session's bill cost, so the count needs no bill
 * read of its own, and the shard's raw and rollup reads, giving the same
 * pairs, give the same count.
 *
 * @example
 * decidedSessions(lists) // { n: 1000, sum: 2400, sumsq: 6000 }
 */
export function decidedSessions(lists: readonly ToolPairList[]): Moments {
  const seen = new Set<string>();
  let [n, sum, sumsq] = [0, 0, 0];
  for (const list of lists) {
    if (list.at.length === 0) continue;
    const ids = list.ids.split("\n");
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as string;
      if (seen.has(id)) continue;
      seen.add(id);
      const cost = list.cost[i] as number;
      n++;
      sum += cost;
      sumsq += cost * cost;
    }
  }
  return { n, sum, sumsq };
}

/**
 * The report's holdout section: every tool's verdict from the confidence
 * sequence, the tenant-wide combination, and (information only, never a
 * verdict) each tool's Welch interval of one look. Its `sessions` are the
 * billed sessions with a decision (decidedSessions): for a tool, about it.
 *
 * @example
 * holdoutFigures(rows, 0.2).tools[0]
 * // { tool_name: "grep", sessions: 1000, treated: 801, held_out: 199, verdict: "saving", ... }
 */
export function holdoutFigures(rows: readonly ToolSessionRow[] | readonly ToolPairList[], holdoutFraction: number) {
  const lists = packed(rows);
  const billed = decidedSessions(lists);
  const verdicts = toolVerdicts(lists, holdoutFraction);
  const tools = lists.map((list) => {
    const seq = verdicts.get(list.tool_name) as SequenceResult;
    const [treated, held] = [momentsOf(list, 0), momentsOf(list, 1)];
    const w = welch(treated, held);
    return {
      tool_name: list.tool_name,
      sessions: seq.sessions,
      treated: seq.treated,
      held_out: seq.held_out,
      share: billed.n > 0 ? Math.min(1, list.at.length / billed.n) : null,
      estimate_usd: seq.estimate,
      interval: seq.interval,
      verdict: seq.verdict,
      withheld: seq.withheld,
      information: {
        treated_mean_cost_usd: mean(treated),
        held_out_mean_cost_usd: mean(held),
        welch_difference_usd: w.difference,
        welch_ci95: w.ci95,
        welch_df: w.df,
      },
    };
  });
  const tenant = tenantVerdict(lists, holdoutFraction, billed.n);
  return {
    fraction: holdoutFraction,
    sessions: billed.n,
    mean_cost_usd: mean(billed),
    verdict: tenant.verdict,
    tenant: {
      tools: tenant.tools,
      alpha_per_tool: tenant.alpha_per_tool,
      estimate_usd: tenant.estimate,
      interval: tenant.interval,
      verdict: tenant.verdict,
      withheld: tenant.withheld,
    },
    tools,
  };
}
