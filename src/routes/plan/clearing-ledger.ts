import { type ClearingOutcome, holdOutClearing } from "../../gate";
import { assign, type LedgerDecision } from "../../ledger";
import type { GateConfig, PricingRow } from "../../storage/schemas";
import type { ContextManagementRequest } from "./context-schema";
import { planRecord } from "./ledger";
import type { ResolvedPlanInputs } from "./schema";

/**
 * @module A server-side clearing decision's id, holdout arm and ledger
 * record, drawn as a plan's are (./ledger.ts). The record is a plan whose
 * members the rule fixes, with the rule beside it, so the outcome the
 * response's `applied_edits` report is priced by the plan's own formula
 * (ledger/model/clearing-net.ts).
 */

/**
 * The decision of one recorded POST /v1/context-management answer: an id in
 * the session's shard, the holdout arm (no edit sent), the record.
 *
 * @example
 * const { decisionId, outcome, record } = assignClearing({ tenant, config, body, resolved, outcome, placeholder: 10, pricedAs, row, at });
 */
export function assignClearing(input: {
  tenant: string;
  config: Readonly<GateConfig>;
  body: ContextManagementRequest;
  resolved: ResolvedPlanInputs;
  outcome: ClearingOutcome;
  placeholder: number;
  pricedAs: string | null;
  row: PricingRow | null;
  at: number;
}): { decisionId: string; outcome: ClearingOutcome; record: LedgerDecision } {
  const { body, outcome } = input;
  const { decisionId, holdout } = assign(input.tenant, body.session_id ?? null, body.tool_name ?? null, input.config);
  const answered = holdout ? holdOutClearing(outcome) : outcome;
  const wouldClear = outcome.context_management !== null;
  const record = planRecord(input, {
    decisionId,
    holdout,
    reason_code: answered.reason_code,
    fire: answered.context_management !== null,
    would_fire: wouldClear,
    // What the edit sent is expected to save; 0 when none is sent, as a plan that stubs nothing.
    predicted_net_usd: wouldClear ? outcome.net_usd : 0,
    plan: {
      segments: body.segments,
      // What the edit clears on the next request: the counterfactual for the holdout.
      stub: wouldClear ? outcome.cleared : [],
      // Every tool result is one the API may clear, small ones too.
      large_offload_threshold_tokens: 0,
      clearing: {
        keep: outcome.edit?.keep.value ?? 0,
        exclude_tools: outcome.edit?.exclude_tools ?? [],
        placeholder_tokens: input.placeholder,
      },
    },
  });
  return { decisionId, outcome: answered, record };
}
