import { clearedBy, type ClearingSegment } from "../../gate";
import type { LedgerClearing, LedgerPlan } from "./plan-net";
import type { OutcomeReport } from "./savings";

/**
 * @module The outcome of a server-side clearing decision (POST
 * /v1/context-management): what the API's `applied_edits` said it cleared,
 * turned into the plan the clearing was, so the plan's own realized net
 * (./plan-net.ts) prices it. Pure.
 */

/**
 * The plan the API actually carried out: the `cleared_tool_uses` oldest
 * results the rule could clear (the API clears oldest first, never an
 * excluded tool's), each replaced by the placeholder, their sizes scaled so
 * that together they free exactly `cleared_input_tokens` (the API's count is
 * the truth about what left the prompt; the request's sizes were the
 * client's estimate). For a decision that sent no edit (not fired), the plan
 * as priced: its counterfactual. Null when nothing was cleared.
 *
 * @example
 * clearingPlanOf(plan, clearing, true, { ..., cleared_tool_uses: 2, cleared_input_tokens: 30_000 }).stub // the two oldest ids
 */
export function clearingPlanOf(
  plan: LedgerPlan,
  clearing: LedgerClearing,
  fired: boolean,
  outcome: OutcomeReport,
): LedgerPlan | null {
  const placeholder = clearing.placeholder_tokens;
  const segments = (plan.segments as ClearingSegment[]).map(({ tool_name: _, ...segment }) =>
    segment.id === undefined ? segment : { ...segment, stub_tokens: placeholder },
  );
  if (!fired) return plan.stub.length === 0 ? null : { ...plan, segments };
  const uses = Math.trunc(outcome.cleared_tool_uses ?? 0);
  const cleared = clearedBy(plan.segments as ClearingSegment[], 0, new Set(clearing.exclude_tools)).slice(
    0,
    Math.max(0, uses),
  );
  if (cleared.length === 0) return null;
  const estimated = cleared.reduce((sum, index) => sum + segments[index]!.tokens, 0);
  const target = Math.max(0, Math.trunc(outcome.cleared_input_tokens ?? 0)) + cleared.length * placeholder;
  // Floors for all but the last, which takes the rest: integers that sum to the target, none negative.
  let given = 0;
  cleared.forEach((index, k) => {
    const share =
      k === cleared.length - 1
        ? target - given
        : Math.floor((target * segments[index]!.tokens) / Math.max(1, estimated));
    given += share;
    segments[index] = { ...segments[index]!, tokens: share };
  });
  return { ...plan, segments, stub: cleared.map((index) => segments[index]!.id!) };
}

/**
 * Why an outcome cannot be a clearing decision's, or null: server-side
 * clearing has no recall tool, `cleared_tool_uses` and `cleared_input_tokens`
 * come together, and a decision that sent no edit cleared nothing.
 *
 * @example
 * clearingMismatch(false, { ..., cleared_tool_uses: 2, cleared_input_tokens: 9 }) // { path: "cleared_tool_uses", ... }
 */
export function clearingMismatch(fired: boolean, outcome: OutcomeReport): { path: string; message: string } | null {
  if (outcome.recalled) return { path: "recalled", message: "must be false: server-side clearing has no recall tool" };
  if ((outcome.recalled_ids ?? []).length > 0)
    return { path: "recalled_ids.0", message: "must be left out: server-side clearing has no recall tool" };
  for (const field of ["cleared_tool_uses", "cleared_input_tokens"] as const) {
    if (outcome[field] === undefined)
      return {
        path: field,
        message: "is required for a clearing decision: what the response's applied_edits reported (0 for none)",
      };
  }
  if (!fired && (outcome.cleared_tool_uses! > 0 || outcome.cleared_input_tokens! > 0))
    return { path: "cleared_tool_uses", message: "must be 0: the decision sent no edit, so the API cleared nothing" };
  return null;
}
