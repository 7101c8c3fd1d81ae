import { type CachePriceRates, cacheAwareTerms, clampHorizon, ratesAt, seedTerms } from "../../gate";
import { clearingMismatch, clearingPlanOf } from "./clearing-net";
import { planMismatch, planRealizedNet } from "./plan-net";
import type { LedgerDecision, OutcomeReport, SessionUsage } from "./types";

/**
 * What the ledger prices: the realized net of a decision with an outcome,
 * the bill of a session, and the per-decision figures the shards sum.
 * Pure: no I/O, no clock (times come in as numbers).
 */

/**
 * q̂: the share of the turns after the decision that read the prefix from
 * the cache; null when the outcome did not say, or there were no turns.
 *
 * @example
 * realizedCacheHitRate({ decision_id: "d", turns_after: 4, recalled: false, cached_turns: 3 }) // 0.75
 */
export function realizedCacheHitRate(outcome: OutcomeReport): number | null {
  if (outcome.cached_turns === undefined || outcome.turns_after <= 0) return null;
  return outcome.cached_turns / outcome.turns_after;
}

/**
 * What the decision most likely made or cost, whatever mode decided it: the
 * cache-aware formula with the row that priced it (and, for a cache-aware
 * decision, its own placement, cache write and recall placement), at h = turns_after,
 * q = q̂ (else the decision's q) and P = the decision's context, else the
 * outcome's, else 0. A fired decision is priced at p = 1 if recalled else 0:
 * its realized net. One that did not fire is priced at its prior p: the
 * counterfactual net it would have made (what "missed savings" sums). Null
 * when no row priced the decision.
 *
 * @example
 * // Seed predicted +$0.23 on 12,000 Opus tokens; the cached bill with a recall says otherwise:
 * realizedNet(decision, { decision_id, turns_after: 4, recalled: true, cached_turns: 4, context_tokens: 150_000 }) // < 0
 */
export function realizedNet(decision: LedgerDecision, outcome: OutcomeReport): number | null {
  if (decision.row === null) return null;
  const { inputs } = decision;
  const q = realizedCacheHitRate(outcome) ?? inputs.cache_hit_rate;
  const { plan } = decision;
  if (plan?.clearing !== undefined) {
    const carried = clearingPlanOf(plan, plan.clearing, decision.fire, outcome);
    // An edit sent that never triggered cleared nothing: exactly what not clearing costs.
    if (carried === null) return decision.fire ? 0 : null;
    return planRealizedNet(carried, inputs, decision.row, decision.fire, { ...outcome, recalled_ids: [] }, q);
  }
  if (plan !== undefined) return planRealizedNet(plan, inputs, decision.row, decision.fire, outcome, q);
  const p = decision.fire ? (outcome.recalled ? 1 : 0) : inputs.recall_probability;
  return cacheAwareTerms(decision.row, {
    outputTokens: inputs.output_tokens,
    horizon: Math.max(0, Math.trunc(outcome.turns_after)),
    recallProbability: p,
    cacheHitRate: q,
    contextTokens: inputs.context_tokens ?? outcome.context_tokens ?? 0,
    stubTokens: inputs.stub_tokens,
    recallInputTokens: inputs.recall_input_tokens,
    recallOutputTokens: inputs.recall_output_tokens,
    // The decision's own placement and cache write: a seed decision was priced as on entry, at 5 minutes.
    offloadAt: inputs.offload_at ?? "entry",
    suffixTokens: inputs.offload_at === "retroactive" ? (inputs.suffix_tokens ?? 0) : 0,
    cacheTtl: inputs.cache_ttl ?? "5m",
    recallPlacement: inputs.recall_placement ?? "append",
  }).net;
}

/**
 * What a fired decision made or cost as the gate priced it (docs/design/learning.md
 * §4.2, the breaker without a holdout): a seed-mode decision by the seed's own
 * economics (no cache), at h = turns_after and p = 1 if recalled else 0; a
 * cache-aware one as realizedNet prices it, at the cache state its outcome
 * reports, else the q it was priced with. Null when no row priced it.
 *
 * @example
 * gateNet(seedDecision, { decision_id, turns_after: 4, recalled: false }) // the seed's reprefill − carry at h 4
 */
export function gateNet(decision: LedgerDecision, outcome: OutcomeReport): number | null {
  if (decision.row === null) return null;
  if (decision.pricing_mode !== "seed" || decision.plan !== undefined) return realizedNet(decision, outcome);
  const { inputs } = decision;
  return seedTerms(decision.row, {
    outputTokens: inputs.output_tokens,
    horizon: clampHorizon(outcome.turns_after),
    recallProbability: decision.fire ? (outcome.recalled ? 1 : 0) : inputs.recall_probability,
    stubTokens: inputs.stub_tokens,
    recallInputTokens: inputs.recall_input_tokens,
    recallOutputTokens: inputs.recall_output_tokens,
  }).net;
}

/**
 * Why an outcome cannot belong to this decision, or null when it can: a
 * stub that never existed cannot be recalled, and a context the decision
 * already carried cannot be restated differently.
 *
 * @example
 * outcomeMismatch(notFired, { ..., recalled: true }) // { path: "recalled", message: "must be false: ..." }
 */
export function outcomeMismatch(
  decision: LedgerDecision,
  outcome: OutcomeReport,
): { path: string; message: string } | null {
  if (decision.plan?.clearing !== undefined) return clearingMismatch(decision.plan, decision.fire, outcome);
  const cleared =
    outcome.cleared_tool_uses !== undefined
      ? "cleared_tool_uses"
      : outcome.cleared_input_tokens !== undefined
        ? "cleared_input_tokens"
        : undefined;
  if (cleared !== undefined)
    return { path: cleared, message: "must be left out: only a clearing decision's outcome says what the API cleared" };
  if (decision.plan !== undefined) return planMismatch(decision.plan, decision.fire, outcome);
  if (outcome.recalled_ids !== undefined)
    return { path: "recalled_ids", message: "must be left out: only a clearing plan's outcome names recalled ids" };
  if (outcome.recalled && !decision.fire) {
    return { path: "recalled", message: "must be false: the decision did not fire, so there was no stub to recall" };
  }
  if (outcome.recalled_high === true && !decision.fire) {
    return {
      path: "recalled_high",
      message: "must be false: the decision did not fire, so there was no stub to recall",
    };
  }
  const carried = decision.inputs.context_tokens;
  if (outcome.context_tokens !== undefined && carried !== null && outcome.context_tokens !== carried) {
    return { path: "context_tokens", message: `must be ${carried} or left out: the decision carried it` };
  }
  return null;
}

/**
 * A session's bill from its summed usage and its model's row. The
 * long-context tier is chosen by the session's mean request size (its input,
 * cache reads and cache writes over its turns): summed usage cannot say
 * which single requests crossed the threshold (`requestsCost` prices a list
 * of requests one by one). 1-hour writes are priced at the 1-hour rate.
 *
 * @example
 * sessionCost({ input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 }, 10,
 *   { input_tokens: 10_000, output_tokens: 2_000, cache_read_input_tokens: 1_000_000, cache_creation_input_tokens: 50_000 })
 * // 0.05 + 0.05 + 0.5 + 0.3125 = 0.9125
 */
export function sessionCost(row: CachePriceRates, turns: number, usage: SessionUsage): number {
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  const written1h = usage.cache_creation_1h_input_tokens ?? 0;
  const meanRequest = turns > 0 ? (usage.input_tokens + read + written + written1h) / turns : 0;
  const rates = ratesAt(row, meanRequest, "5m", false);
  const cost =
    usage.input_tokens * rates.in + usage.output_tokens * rates.out + read * rates.read + written * rates.write;
  // Added only when there are 1-hour writes, so a bill without them sums the other terms alone.
  return written1h > 0 ? cost + written1h * ratesAt(row, meanRequest, "1h", false).write : cost;
}

/**
 * A session's bill from one usage per request: each priced at its own size,
 * so only the requests over a long-context threshold pay its tier.
 *
 * @example
 * requestsCost(sonnetWithTier, [{ input_tokens: 250_000, output_tokens: 0 }, { input_tokens: 10_000, output_tokens: 0 }])
 * // 250,000 at the tier's input price + 10,000 at the base one
 */
export function requestsCost(row: CachePriceRates, requests: readonly SessionUsage[]): number {
  return requests.reduce((sum, usage) => sum + sessionCost(row, 1, usage), 0);
}
