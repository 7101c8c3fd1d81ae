import { holdOutPlan, type HeldPlan, type PlanOutcome } from "../../gate";
import { newDecisionId } from "../../ledger/client";
import { holdoutKey, inHoldout } from "../../ledger/ids";
import type { LedgerDecision } from "../../ledger/savings";
import type { GateConfig } from "../../store/config";
import type { PlanRequest, ResolvedPlanInputs } from "./schema";

/**
 * Gives a clearing plan its id (in the session's shard), its holdout arm and
 * its ledger record, as a gate decision gets them (../gate/ledger.ts). The
 * record carries no pricing row: a plan's realized net is the plan's own
 * formula, which the ledger does not price yet, so a plan's outcome counts
 * toward the realized recall and horizon but not the realized net.
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
  at: number;
}): { decisionId: string; outcome: HeldPlan; record: LedgerDecision } {
  const { body, resolved, config, outcome } = input;
  const sessionId = body.session_id ?? null;
  const decisionId = newDecisionId(input.tenant, sessionId, config.ledger_shards);
  const holdout = inHoldout(input.tenant, holdoutKey(sessionId, body.tool_name ?? null, decisionId), config.holdout_fraction);
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
      output_tokens: body.segments.reduce((sum, segment) => sum + (segment.id !== undefined && stubbed.has(segment.id) ? segment.tokens : 0), 0),
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
    row: null,
  };
  return { decisionId, outcome: answered, record };
}
