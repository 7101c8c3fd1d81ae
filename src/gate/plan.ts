import { hopSuffixRate } from "./cache-aware";
import {
  DEFAULT_CACHE_AWARE_FLOOR_TOKENS,
  DEFAULT_RECALL_INPUT_TOKENS,
  DEFAULT_RECALL_OUTPUT_TOKENS,
  DEFAULT_STUB_TOKENS,
} from "./constants";
import { clampHorizon, clampProbability } from "./decision";
import { carryCost, laterTurnRate, ratesAt, type TokenRates } from "./rates";
import type { CacheAwareInputs, CachePriceRates, CacheTtl, RecallPlacement } from "./types";

/** Most segments one plan reads: a long agent history, one segment per message or tool result. */
export const MAX_PLAN_SEGMENTS = 512;
/** Most candidates (segments with an id) one plan weighs. */
export const MAX_PLAN_CANDIDATES = 64;

/**
 * The clearing plan's objective (docs/design/plan.md §2): the history is cached,
 * some old tool outputs sit in it, and stubbing a set C of them on the next
 * turn rewrites everything from the earliest stub on. This module prices one
 * plan; ./plan-search.ts finds the best. Pure: no I/O, no clock.
 */

/** One piece of the history: fixed context (no id) or a tool output that may be stubbed. */
export interface PlanSegment {
  tokens: number;
  /** Set on a candidate: a tool output that may be replaced by a stub. */
  id?: string;
  /** The candidate's p_recall; default: the request's prior. */
  recall_probability?: number;
  /** The candidate's stub size; default: the request's stub_tokens. */
  stub_tokens?: number;
}

/** The request of a clearing plan, under the gate's field names. */
export interface PlanInputs {
  model_name: string;
  horizon: number;
  /** The p_recall prior for candidates that give none. */
  recall_probability: number;
  cache_hit_rate: number;
  cache_ttl?: CacheTtl;
  /** Where a recall puts the original back; default "append" (docs/design/economics.md §4.2). */
  recall_placement?: RecallPlacement;
  large_offload_threshold_tokens?: number;
  stub_tokens?: number;
  recall_input_tokens?: number;
  recall_output_tokens?: number;
  segments: readonly PlanSegment[];
}

/** A candidate at or above the pre-filter, with what the objective reads from it. */
export interface PlanCandidate {
  /** Position in `segments`. */
  segment: number;
  id: string;
  /** t_i, S_i, p_i. */
  tokens: number;
  stub: number;
  p: number;
  /** P_i: tokens of history before it. */
  before: number;
}

/** Everything the objective needs, resolved once per request. */
export interface PlanModel {
  /** N: tokens of the whole history. */
  total: number;
  h: number;
  q: number;
  recallIn: number;
  recallOut: number;
  placement: RecallPlacement;
  /** Candidates that may be stubbed, in history order. */
  candidates: PlanCandidate[];
  /** K and m(K): the history as it is. */
  keep: TokenRates;
  mKeep: number;
  /** The rates of a request of `tokens` input tokens (T for a plan is ratesOf(N′)). */
  ratesOf(tokens: number): TokenRates;
  /** The long-context threshold, or Infinity for a row without a tier. */
  tierThreshold: number;
}

/** One plan's terms. `net` is what the plan saves over keeping everything. */
export interface PlanTerms {
  net: number;
  keepCost: number;
  planCost: number;
  /** P_j: the prefix that stays cached. */
  rewriteFrom: number;
  /** N′ − P_j: the stubs and the suffix, written again on the next turn. */
  rewritten: number;
  /** N′: the history after the plan. */
  after: number;
  stubbed: TokenRates;
}

/**
 * Resolves a plan's inputs against a pricing row: defaults filled, h, p and q
 * clamped as the gate does, candidates below the pre-filter left out (they
 * are never stubbed, so they count as fixed context).
 *
 * @example
 * planModel({ model_name: "m", horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9,
 *   segments: [{ tokens: 8_000 }, { id: "c1", tokens: 42_000 }] }, OPUS).candidates
 * // [{ segment: 1, id: "c1", tokens: 42000, stub: 200, p: 0.25, before: 8000 }]
 */
export function planModel(inputs: PlanInputs, row: CachePriceRates): PlanModel {
  // A plan is always priced cache-aware: no floor unless one is set.
  const threshold = inputs.large_offload_threshold_tokens ?? DEFAULT_CACHE_AWARE_FLOOR_TOKENS;
  const ttl = inputs.cache_ttl ?? "5m";
  const q = clampProbability(inputs.cache_hit_rate);
  const candidates: PlanCandidate[] = [];
  let total = 0;
  inputs.segments.forEach((segment, index) => {
    if (segment.id !== undefined && segment.tokens >= threshold) {
      candidates.push({
        segment: index,
        id: segment.id,
        tokens: segment.tokens,
        stub: segment.stub_tokens ?? inputs.stub_tokens ?? DEFAULT_STUB_TOKENS,
        p: clampProbability(segment.recall_probability ?? inputs.recall_probability),
        before: total,
      });
    }
    total += segment.tokens;
  });
  // A request's rates depend only on which side of the tier threshold it is:
  // resolve both sides once rather than once per plan evaluated.
  // And whether it is below the row's minimum cacheable prefix (docs/design/economics.md §11).
  const floor = row.min_cache_prefix_tokens ?? 0;
  const base = ratesAt(row, floor, ttl);
  const below = floor > 0 ? ratesAt(row, 0, ttl) : base;
  const tierThreshold = row.long_context?.threshold_tokens ?? Infinity;
  const tiered = tierThreshold === Infinity ? base : ratesAt(row, Infinity, ttl);
  const ratesOf = (tokens: number): TokenRates => (tokens > tierThreshold ? tiered : tokens < floor ? below : base);
  const keep = ratesOf(total);
  return {
    total,
    h: clampHorizon(inputs.horizon),
    q,
    recallIn: inputs.recall_input_tokens ?? DEFAULT_RECALL_INPUT_TOKENS,
    recallOut: inputs.recall_output_tokens ?? DEFAULT_RECALL_OUTPUT_TOKENS,
    placement: inputs.recall_placement ?? "append",
    candidates,
    keep,
    mKeep: laterTurnRate(keep, q),
    ratesOf,
    tierThreshold,
  };
}

/**
 * The terms of the plan that stubs `members` (indexes into
 * `model.candidates`, ascending, at least one). net is computed as the
 * retroactive gate computes its net (saving + premium − (stub + recall +
 * suffix rewrite)) with O = Σ t_i, S = Σ S_i and A = the suffix that stays,
 * so a one-candidate plan is the retroactive gate for that candidate, bit
 * for bit; keep_cost − plan_cost equals it up to rounding. `rates` prices the
 * stub side as if it were on that side of a tier threshold (the search's
 * bound); by default it is tier(N′), the plan's own.
 *
 * @example
 * planTerms(planModel(P1, OPUS), [0, 1, 2]).net // ≈ 0.277302 appended, 0.177683 in place
 */
export function planTerms(model: PlanModel, members: readonly number[], rates?: TokenRates): PlanTerms {
  const { total, h } = model;
  const first = model.candidates[members[0] ?? -1];
  if (first === undefined) throw new RangeError("a plan stubs at least one candidate");
  let removed = 0;
  let stubs = 0;
  for (const k of members) {
    const c = model.candidates[k] as PlanCandidate;
    removed += c.tokens;
    stubs += c.stub;
  }
  const after = total - removed + stubs;
  const stubbed = rates ?? model.ratesOf(after);
  const mStub = laterTurnRate(stubbed, model.q);
  const hop = model.recallIn * stubbed.write + model.recallOut * stubbed.out;
  let recall = 0;
  for (const k of members) {
    const c = model.candidates[k] as PlanCandidate;
    recall += c.p * recallHop(model, c, hop, mStub, stubbed);
  }
  // The tokens after the earliest stub that stay: written again once, then carried. Every term
  // below is the retroactive gate's (cache-aware.ts, termsAt), operation for operation.
  const suffix = total - first.before - removed;
  const reprefill = removed * model.mKeep * h;
  const premium = first.before * h * (model.mKeep - mStub);
  const suffixRewrite = suffix === 0 ? 0 : carryCost(suffix, stubbed, mStub, h) - suffix * model.mKeep * h;
  const stubCost = carryCost(stubs, stubbed, mStub, h);
  const net = reprefill + premium - (stubCost + recall + suffixRewrite);
  const keepCost = total * h * model.mKeep;
  const planCost = first.before * h * mStub + carryCost(after - first.before, stubbed, mStub, h) + recall;
  return { net, keepCost, planCost, rewriteFrom: first.before, rewritten: after - first.before, after, stubbed };
}

/**
 * One recall hop of a candidate, before its probability: one more call over
 * the whole history, as the retroactive gate prices it: the slice and the
 * reply, P_i · m(T), and A_i read (m(T), the original appended at the end)
 * or written (T.write, restored in place). P_i and A_i are the history as it
 * stands, not as the plan leaves it: each hop is priced as if it were the
 * plan's only stub, which keeps the search's terms independent and never
 * prices a hop below its bill (other stubs are shorter than their outputs).
 *
 * @example
 * recallHop(model, model.candidates[0], hop, laterTurnRate(T, model.q), T) // 2,000 · T.write + 500 · T.out + P · m(T) + A · m(T) when appended
 */
export function recallHop(model: PlanModel, c: PlanCandidate, hop: number, mStub: number, stubbed: TokenRates): number {
  return hop + c.before * mStub + (model.total - c.before - c.tokens) * hopSuffixRate(stubbed, mStub, model.placement);
}

/**
 * The retroactive gate's request for stubbing one candidate alone: P = the
 * tokens before it, O = its own, A = the tokens after it, everything else the
 * plan's. `alone_net_saving_usd` is that gate's net, and a one-candidate plan
 * equals it bit for bit.
 *
 * @example
 * const c1 = planModel(P1, OPUS).candidates[0];
 * aloneRequest(P1, planModel(P1, OPUS), c1) // { output_tokens: 42000, context_tokens: 8000, suffix_tokens: 51500, offload_at: "retroactive", ... }
 */
export function aloneRequest(inputs: PlanInputs, model: PlanModel, candidate: PlanCandidate): CacheAwareInputs {
  return {
    model_name: inputs.model_name,
    output_tokens: candidate.tokens,
    horizon: inputs.horizon,
    recall_probability: candidate.p,
    cache_hit_rate: inputs.cache_hit_rate,
    context_tokens: candidate.before,
    offload_at: "retroactive",
    suffix_tokens: model.total - candidate.before - candidate.tokens,
    cache_ttl: inputs.cache_ttl ?? "5m",
    recall_placement: model.placement,
    large_offload_threshold_tokens: inputs.large_offload_threshold_tokens ?? DEFAULT_CACHE_AWARE_FLOOR_TOKENS,
    stub_tokens: candidate.stub,
    recall_input_tokens: model.recallIn,
    recall_output_tokens: model.recallOut,
  };
}
