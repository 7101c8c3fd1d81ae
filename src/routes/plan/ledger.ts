import { type HeldPlan, holdOutPlan, type PlanOutcome } from "../../gate";
import { assign, type LedgerDecision, type LedgerPlan } from "../../ledger";
import type { GateConfig, PricingRow } from "../../storage/schemas";
import { pricesOf } from "../gate/direct";
import type { PlanRequest, ResolvedPlanInputs } from "./schema";

/**
 * Gives a clearing plan its id (in the session's shard), its holdout arm and
 * its ledger record, as a gate decision gets them (../gate/direct/ledger.ts). The
 * record keeps the pricing row, the segments and the ids it stubbed: its
 * outcome is priced by the plan's own formula (ledger/model/plan-net.ts).
 *
 * @example
 * const { decisionId, outcome, record } = assignPlan({ tenant, config, body, resolved, outcome, pricedAs, at: Date.now() });
 */
export function assignPlan(input: {
  tenant: string;
  config: Readonly<GateConfig>;
  body: PlanRequest;
  resolved: ResolvedPlanInputs;
  outcome: PlanOutcome;
  pricedAs: string | null;
  /** The row that priced the plan; null when none did. */
  row: PricingRow | null;
  at: number;
}): { decisionId: string; outcome: HeldPlan; record: LedgerDecision } {
  const { body, resolved, config, outcome } = input;
  const sessionId = body.session_id ?? null;
  const { decisionId, holdout } = assign(input.tenant, sessionId, body.tool_name ?? null, config);
  const answered = holdout ? holdOutPlan(outcome) : outcome;
  const record = planRecord(input, {
    decisionId,
    holdout,
    reason_code: answered.reason_code,
    fire: answered.stub.length > 0,
    would_fire: outcome.stub.length > 0,
    predicted_net_usd: outcome.net_saving_usd,
    plan: {
      segments: body.segments,
      stub: outcome.stub,
      large_offload_threshold_tokens: resolved.large_offload_threshold_tokens,
    },
  });
  return { decisionId, outcome: answered, record };
}

/** What a plan-shaped decision (a plan, a server-side clearing) decided, beside its request. */
export interface PlanVerdict {
  decisionId: string;
  holdout: boolean;
  reason_code: string;
  fire: boolean;
  would_fire: boolean;
  predicted_net_usd: number;
  /** Its segments and the ids it stubs (or clears), outside the holdout. */
  plan: LedgerPlan;
}

/**
 * The ledger record of a plan-shaped decision: its inputs as the plan's
 * formula reads them back (ledger/model/plan-net.ts), so a plan and a
 * clearing are priced by the same code when their outcome comes.
 *
 * @example
 * planRecord({ tenant, body, resolved, pricedAs, row, at }, { decisionId, holdout: false, ... }).inputs.offload_at // "retroactive"
 */
export function planRecord(
  input: {
    body: Pick<PlanRequest, "session_id" | "tool_name">;
    resolved: ResolvedPlanInputs;
    pricedAs: string | null;
    row: PricingRow | null;
    at: number;
  },
  verdict: PlanVerdict,
): LedgerDecision {
  const { body, resolved } = input;
  const stubbed = new Set(verdict.plan.stub);
  return {
    decision_id: verdict.decisionId,
    at: input.at,
    session_id: body.session_id ?? null,
    tool_name: body.tool_name ?? null,
    model_name: resolved.model_name,
    priced_as: input.pricedAs,
    pricing_mode: "cache_aware",
    reason_code: verdict.reason_code,
    fire: verdict.fire,
    would_fire: verdict.would_fire,
    holdout: verdict.holdout,
    predicted_net_usd: verdict.predicted_net_usd,
    inputs: {
      // The outputs the plan would stub, together.
      output_tokens: verdict.plan.segments.reduce(
        (sum, segment) => sum + (segment.id !== undefined && stubbed.has(segment.id) ? segment.tokens : 0),
        0,
      ),
      horizon: resolved.horizon,
      recall_probability: resolved.recall_probability,
      cache_hit_rate: resolved.cache_hit_rate,
      context_tokens: resolved.history_tokens,
      stub_tokens: resolved.stub_tokens,
      recall_input_tokens: resolved.recall_input_tokens,
      recall_output_tokens: resolved.recall_output_tokens,
      offload_at: "retroactive",
      suffix_tokens: 0,
      cache_ttl: resolved.cache_ttl,
      // Only "in_place" is kept: appended is the default, so an appended record is as it always was.
      ...(resolved.recall_placement === "in_place" ? { recall_placement: "in_place" as const } : {}),
    },
    row: input.row === null ? null : pricesOf(input.row),
    plan: verdict.plan,
  };
}
