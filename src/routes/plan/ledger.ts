import { holdOutPlan, type HeldPlan, type PlanOutcome } from "../../gate";
import { assign, type LedgerDecision } from "../../ledger";
import type { GateConfig } from "../../store/config";
import type { PricingRow } from "../../store/schema";
import { pricesOf } from "../gate/request/ledger";
import type { PlanRequest, ResolvedPlanInputs } from "./schema";

/**
 * Gives a clearing plan its id (in the session's shard), its holdout arm and
 * its ledger record, as a gate decision gets them (../gate/request/ledger.ts). The
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
  const stubbed = new Set(outcome.stub);
  const record: LedgerDecision = {
    decision_id: decisionId,
    at: input.at,
    session_id: sessionId,
    tool_name: body.tool_name ?? null,
    model_name: resolved.model_name,
    priced_as: input.pricedAs,
    pricing_mode: "cache_aware",
    reason_code: answered.reason_code,
    fire: answered.stub.length > 0,
    would_fire: outcome.stub.length > 0,
    holdout,
    predicted_net_usd: outcome.net_saving_usd,
    inputs: {
      // The outputs the plan would stub, together.
      output_tokens: body.segments.reduce(
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
    },
    row: input.row === null ? null : pricesOf(input.row),
    plan: {
      segments: body.segments,
      stub: outcome.stub,
      large_offload_threshold_tokens: resolved.large_offload_threshold_tokens,
    },
  };
  return { decisionId, outcome: answered, record };
}
