import { clampHorizon, clampProbability } from "./decision";
import { missingCachePrice } from "./gaps";
import { type PlanInputs, type PlanSegment, type PlanTerms, planModel, planTerms } from "./plan";
import { decidePlan } from "./plan-outcome";
import { pyFixed, pyNumber } from "./pyformat";
import type { CachePriceRates, PricingLookup } from "./types";

/**
 * Anthropic's server-side clearing (`clear_tool_uses_20250919`) priced with
 * the clearing plan's economics. Once a request's input passes `trigger`,
 * the API replaces every tool result but the `keep` most recent (and those
 * of `exclude_tools`) with a placeholder, provided that clears at least
 * `clear_at_least` tokens. That is a plan whose members the rule fixes, so
 * each rule is priced by `planTerms` on the next request: the cached prefix
 * up to the first cleared result stays, the placeholders and everything
 * after are written again, recalls re-read the history. Every `keep` and
 * every set of excluded tools (of the six largest tools) is tried; the rule
 * with the greatest net is the answer. Pure: no I/O, no clock.
 */

/** The edit's type as the Messages API names it. */
export const CLEAR_TOOL_USES = "clear_tool_uses_20250919";
/** Why a clearing answer is what it is. */
export const CLEARING_REASON_CODES = [
  "clear_positive",
  "clear_not_positive",
  "no_tool_results",
  "unpriced",
  "pricing_unavailable",
  "pricing_incomplete",
  "holdout",
] as const;
export type ClearingReasonCode = (typeof CLEARING_REASON_CODES)[number];

/** Tokens of the API's placeholder for a cleared result, unless the request says. */
export const DEFAULT_PLACEHOLDER_TOKENS = 10;
/** Tools whose every subset is tried for exclude_tools: 2⁶ subsets × up to 64 keeps stays a few ms. */
export const MAX_EXCLUDABLE_TOOLS = 6;

/** A segment of the history, as for a plan, with the tool that produced it. */
export interface ClearingSegment extends PlanSegment {
  tool_name?: string;
}

/** A plan's inputs, with tool names on the segments and the placeholder's size. */
export interface ClearingInputs extends Omit<PlanInputs, "segments"> {
  segments: readonly ClearingSegment[];
  placeholder_tokens?: number;
}

/** The `context_management.edits` entry, as the Messages API takes it. */
export interface ClearToolUsesEdit {
  type: typeof CLEAR_TOOL_USES;
  trigger: { type: "input_tokens"; value: number };
  keep: { type: "tool_uses"; value: number };
  clear_at_least: { type: "input_tokens"; value: number };
  exclude_tools: string[];
}

/** The best rule found and what it does on the next request. */
export interface ClearingChoice {
  edit: ClearToolUsesEdit;
  /** Ids of the results it clears, in history order. */
  cleared: string[];
  /** Tokens of those results (the placeholders not subtracted). */
  cleared_tokens: number;
  terms: PlanTerms;
  /** How many (keep, exclude_tools) rules were priced. */
  considered: number;
  /** Set when the row lacks a price the net needs: the rule is then never recommended. */
  missing: ReturnType<typeof missingCachePrice>;
}

/**
 * The results a rule clears: every tool result (segment with an id) but the
 * `keep` most recent, less those of excluded tools. Indexes into `segments`.
 *
 * @example
 * clearedBy([{ id: "a", tokens: 9, tool_name: "grep" }, { id: "b", tokens: 9, tool_name: "read" }, { id: "c", tokens: 9 }], 1, new Set(["read"])) // [0]
 */
export function clearedBy(segments: readonly ClearingSegment[], keep: number, exclude: ReadonlySet<string>): number[] {
  const uses = segments.flatMap((segment, index) => (segment.id === undefined ? [] : [index]));
  return uses
    .slice(0, Math.max(0, uses.length - keep))
    .filter((index) => !exclude.has(segments[index]!.tool_name ?? ""));
}

/**
 * The clear_tool_uses rule with the greatest net over the horizon against not
 * clearing, or null when the history has no tool result. Its net may be ≤ 0:
 * the caller then recommends no edit.
 *
 * @example
 * bestClearing(P1_WITH_TOOLS, OPUS)?.edit.keep // { type: "tool_uses", value: 0 }: clear all three
 */
export function bestClearing(inputs: ClearingInputs, row: CachePriceRates): ClearingChoice | null {
  const placeholder = inputs.placeholder_tokens ?? DEFAULT_PLACEHOLDER_TOKENS;
  // Every tool result is a candidate (the API clears small ones too), each replaced by the placeholder.
  const segments = inputs.segments.map(({ tool_name: _, ...segment }) =>
    segment.id === undefined ? segment : { ...segment, stub_tokens: placeholder },
  );
  const priced = row.prompt_cache === false ? { ...inputs, cache_hit_rate: 0 } : inputs;
  const model = planModel({ ...priced, segments, large_offload_threshold_tokens: 0 }, row);
  if (model.candidates.length === 0) return null;
  const memberOf = new Map(model.candidates.map((c, k) => [c.segment, k]));
  const uses = model.candidates.length;
  let best: (Omit<ClearingChoice, "considered" | "missing" | "edit"> & { keep: number; exclude: string[] }) | null =
    null;
  let considered = 0;
  // Fewer exclusions first and more kept first: on a tie the simpler, gentler rule stands.
  for (const exclude of subsetsBySize(excludable(inputs.segments))) {
    const excluded = new Set(exclude);
    for (let keep = uses - 1; keep >= 0; keep--) {
      const members = clearedBy(inputs.segments, keep, excluded).map((index) => memberOf.get(index)!);
      if (members.length === 0) continue;
      considered++;
      const terms = planTerms(model, members);
      if (best === null || terms.net > best.terms.net) {
        const cleared = members.map((k) => model.candidates[k]!);
        best = {
          keep,
          exclude,
          terms,
          cleared: cleared.map((c) => c.id),
          cleared_tokens: cleared.reduce((sum, c) => sum + c.tokens, 0),
        };
      }
    }
  }
  if (best === null) return null;
  const { keep, exclude, ...rest } = best;
  // Fires on this request (the history is past it) and on every later one; clears no less than priced.
  const edit: ClearToolUsesEdit = {
    type: CLEAR_TOOL_USES,
    trigger: { type: "input_tokens", value: Math.max(0, model.total - 1) },
    keep: { type: "tool_uses", value: keep },
    clear_at_least: {
      type: "input_tokens",
      value: Math.max(0, rest.cleared_tokens - rest.cleared.length * placeholder),
    },
    exclude_tools: exclude,
  };
  return { ...rest, edit, considered, missing: missingCachePrice([model.keep, rest.terms.stubbed], model.q) };
}

/**
 * One line on the rule and its money, in the plan's reason's words.
 *
 * @example
 * clearingReason(inputs, choice) // "clear 3 of 3 tool results (keep 0, exclude none): net=$0.2791 …"
 */
export function clearingReason(inputs: ClearingInputs, choice: ClearingChoice, uses: number): string {
  const { terms, edit } = choice;
  const excluded = edit.exclude_tools.length === 0 ? "none" : edit.exclude_tools.join(", ");
  return (
    `clear ${choice.cleared.length} of ${uses} tool results (keep ${edit.keep.value}, exclude ${excluded}): ` +
    `net=$${pyFixed(terms.net, 4)} (keep=$${pyFixed(terms.keepCost, 4)} − clear=$${pyFixed(terms.planCost, 4)}); ` +
    `cached prefix ${pyNumber(terms.rewriteFrom)} tokens, ${pyNumber(terms.rewritten)} written again; ` +
    `H=${clampHorizon(inputs.horizon)} q=${pyFixed(clampProbability(inputs.cache_hit_rate), 2)} ttl=${inputs.cache_ttl ?? "5m"} model=${inputs.model_name}`
  );
}

// The tools whose results may be excluded: the ones holding the most tokens, at most MAX_EXCLUDABLE_TOOLS.
function excludable(segments: readonly ClearingSegment[]): string[] {
  const tokens = new Map<string, number>();
  for (const s of segments)
    if (s.id !== undefined && s.tool_name !== undefined)
      tokens.set(s.tool_name, (tokens.get(s.tool_name) ?? 0) + s.tokens);
  return [...tokens.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_EXCLUDABLE_TOOLS)
    .map(([name]) => name)
    .sort();
}

// Every subset of `names`, smallest first, each in the names' order.
function subsetsBySize(names: readonly string[]): string[][] {
  const all: string[][] = [];
  for (let mask = 0; mask < 1 << names.length; mask++) all.push(names.filter((_, i) => (mask & (1 << i)) !== 0));
  return all.sort((a, b) => a.length - b.length);
}

/** What POST /v1/context-management answers, before the route adds pricing and inputs. */
export interface ClearingOutcome {
  context_management: { edits: ClearToolUsesEdit[] } | null;
  edit: ClearToolUsesEdit | null;
  cleared: string[];
  cleared_tokens: number;
  net_usd: number;
  keep_cost_usd: number;
  clear_cost_usd: number;
  considered: number;
  plan: { stub: string[]; net_saving_usd: number; reason_code: string };
  left_on_table_usd: number;
  reason: string;
  reason_code: ClearingReasonCode;
}

/**
 * The clearing answer: the best rule, recommended only when its net is
 * positive and fully priced, and the plan's optimum for the same history.
 *
 * @example
 * decideClearing(P1_WITH_TOOLS, { status: "priced", row: OPUS, canonical: "claude-opus-4-6" }).reason_code // "clear_positive"
 */
export function decideClearing(inputs: ClearingInputs, lookup: PricingLookup<CachePriceRates>): ClearingOutcome {
  const planned = decidePlan(
    { ...inputs, segments: inputs.segments.map(({ tool_name: _, ...segment }) => segment) },
    lookup,
  );
  const plan = { stub: planned.stub, net_saving_usd: planned.net_saving_usd, reason_code: planned.reason_code };
  const uses = inputs.segments.filter((segment) => segment.id !== undefined).length;
  const none = {
    context_management: null,
    edit: null,
    cleared: [],
    cleared_tokens: 0,
    net_usd: 0,
    keep_cost_usd: 0,
    clear_cost_usd: 0,
    considered: 0,
    plan,
    left_on_table_usd: plan.net_saving_usd,
  };
  if (uses === 0) return { ...none, reason: "no tool results: no segment has an id", reason_code: "no_tool_results" };
  if (lookup.status === "unpriced")
    return {
      ...none,
      reason: `no MODEL_PRICING row for ${inputs.model_name}: nothing cleared`,
      reason_code: "unpriced",
    };
  if (lookup.status === "unavailable")
    return {
      ...none,
      reason: `pricing unavailable for ${inputs.model_name}: ${lookup.detail}; nothing cleared`,
      reason_code: "pricing_unavailable",
    };
  const choice = bestClearing(inputs, lookup.row)!;
  const positive = choice.terms.net > 0 && choice.missing === null;
  const reason_code: ClearingReasonCode =
    choice.missing !== null ? "pricing_incomplete" : positive ? "clear_positive" : "clear_not_positive";
  const head =
    choice.missing !== null
      ? `pricing incomplete: no ${choice.missing} price, so a cache hit cannot be priced; nothing cleared. `
      : positive
        ? ""
        : "send no edit: the best rule loses money. ";
  const net = positive ? choice.terms.net : 0;
  return {
    context_management: positive ? { edits: [choice.edit] } : null,
    edit: choice.edit,
    cleared: choice.cleared,
    cleared_tokens: choice.cleared_tokens,
    net_usd: choice.terms.net,
    keep_cost_usd: choice.terms.keepCost,
    clear_cost_usd: choice.terms.planCost,
    considered: choice.considered,
    plan,
    left_on_table_usd: plan.net_saving_usd - net,
    reason: head + clearingReason(inputs, choice, uses),
    reason_code,
  };
}
