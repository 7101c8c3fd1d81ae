import { type ClearingSegment, clearedBy } from "../../gate";
import type { LedgerClearing, LedgerPlan, OutcomeReport } from "./types";

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
 * How far the API's count of what it cleared may exceed the request's own
 * sizes of those results: a quarter. The request's sizes are the client's
 * estimate (a character count over 4, another model's tokenizer), which
 * may fall short of the API's count; a quarter leaves room for such an
 * estimate and no more, so one outcome cannot claim savings the decision
 * never listed (docs/ledger.md § Server-side clearing).
 */
export const CLEARED_TOKENS_TOLERANCE = 0.25;

const NO_TOKENS_WITHOUT_USES = "must be 0 when cleared_tool_uses is 0: no result cleared, no token freed";

/**
 * Why an outcome cannot be a clearing decision's, or null: server-side
 * clearing has no recall tool, `cleared_tool_uses` and `cleared_input_tokens`
 * come together, a decision that sent no edit cleared nothing, and one that
 * sent it cleared at most the results it listed that its exclusions allow,
 * at most their sizes (the largest that many) plus CLEARED_TOKENS_TOLERANCE,
 * and no tokens without a result. A client that sums `applied_edits` over
 * several responses instead of keeping the largest meets these.
 *
 * @example
 * clearingMismatch(plan, false, { ..., cleared_tool_uses: 2, cleared_input_tokens: 9 }) // { path: "cleared_tool_uses", ... }
 * clearingMismatch(plan, true, { ..., cleared_tool_uses: 1000, cleared_input_tokens: 9 }) // { path: "cleared_tool_uses", message: "must be at most 3: ..." }
 */
export function clearingMismatch(
  plan: LedgerPlan,
  fired: boolean,
  outcome: OutcomeReport,
): { path: string; message: string } | null {
  if (outcome.recalled) return { path: "recalled", message: "must be false: server-side clearing has no recall tool" };
  if (outcome.recalled_high === true)
    return { path: "recalled_high", message: "must be false: server-side clearing has no recall tool" };
  if ((outcome.recalled_ids ?? []).length > 0)
    return { path: "recalled_ids.0", message: "must be left out: server-side clearing has no recall tool" };
  for (const field of ["cleared_tool_uses", "cleared_input_tokens"] as const) {
    if (outcome[field] === undefined)
      return {
        path: field,
        message: "is required for a clearing decision: what the response's applied_edits reported (0 for none)",
      };
  }
  const uses = outcome.cleared_tool_uses!;
  const tokens = outcome.cleared_input_tokens!;
  if (!fired && (uses > 0 || tokens > 0))
    return { path: "cleared_tool_uses", message: "must be 0: the decision sent no edit, so the API cleared nothing" };
  const clearing = plan.clearing!;
  const segments = plan.segments as ClearingSegment[];
  const clearable = clearedBy(segments, 0, new Set(clearing.exclude_tools)).map((index) => segments[index]!.tokens);
  if (uses > clearable.length)
    return {
      path: "cleared_tool_uses",
      message: `must be at most ${clearable.length}: the tool results the decision listed that its edit may clear (report the largest applied_edits, never their sum)`,
    };
  if (uses === 0 && tokens > 0)
    return {
      path: "cleared_input_tokens",
      message: "must be 0 when cleared_tool_uses is 0: no result cleared, no token freed",
    };
  const listed = clearable
    .sort((a, b) => b - a)
    .slice(0, uses)
    .reduce((sum, size) => sum + size, 0);
  const most = Math.floor(listed * (1 + CLEARED_TOKENS_TOLERANCE));
  if (tokens > most)
    return {
      path: "cleared_input_tokens",
      message: `must be at most ${most}: the ${uses} largest clearable results the decision listed hold ${listed} tokens, plus ${CLEARED_TOKENS_TOLERANCE * 100}% for the API's own count`,
    };
  return null;
}

/**
 * What is wrong with a clearing outcome's counts whatever its decision: tokens freed with no result
 * cleared. Asked before an outcome waits for its queued decision (../shard/pending.ts), so the
 * client hears it at once; the checks against the decision run when it arrives.
 *
 * @example
 * clearedAlone({ ..., cleared_tool_uses: 0, cleared_input_tokens: 50_000 }) // { path: "cleared_input_tokens", ... }
 */
export function clearedAlone(outcome: OutcomeReport): { path: string; message: string } | null {
  if (outcome.cleared_tool_uses === 0 && (outcome.cleared_input_tokens ?? 0) > 0)
    return { path: "cleared_input_tokens", message: NO_TOKENS_WITHOUT_USES };
  return null;
}
