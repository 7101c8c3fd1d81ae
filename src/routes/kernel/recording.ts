/**
 * Recording a decision, as every route that records one does: the one switch
 * (`dry_run`), and for a plan or a clearing, its id signed, its data point
 * written and its ledger record handed on after the answer. Free of zod, so
 * the gate's startup path may import it.
 *
 * @module
 */

import { handDecisions, type LedgerDecision, signDecisionId } from "../../ledger";
import type { GateConfig } from "../../storage/schemas";
import type { DecideContext } from "./context";
import type { PricedAs } from "./pricing";

/**
 * Whether an answer is recorded: the one switch every recording path (the
 * data point, the ledger record, the holdout draw, a learning observation)
 * checks.
 *
 * @example
 * isRecorded({ dry_run: true }) // false
 * isRecorded({}) // true
 */
export const isRecorded = (body: { dry_run?: boolean | undefined }): boolean => body.dry_run !== true;

/** The fields every plan and clearing data point starts with (docs/analytics.md). */
export interface PointHead {
  tenant: string;
  model_name: string;
  priced_as: string | null;
  price_effective_at: string | null;
  stale_age_seconds: number | null;
  decision_id: string;
  tool_name: string | null;
  session_id: string | null;
}

/**
 * Signs a recorded plan's or clearing's id (as a gate decision's is), writes
 * its data point, and hands its ledger record to the ledger after the answer,
 * never failing it. Signed before the data point and the ledger see it: an
 * outcome sent as soon as the answer arrives may then wait in its shard for
 * the queued decision (docs/design/ledger.md §1).
 *
 * @example
 * const decisionId = await signAndRecord(context, config, assigned, { model_name, pricedAs, stale }, (head) =>
 *   recordPlan(env.DECISIONS, { ...head, outcome, inputs }));
 */
export async function signAndRecord(
  context: DecideContext,
  config: Readonly<GateConfig>,
  assigned: { decisionId: string; record: LedgerDecision },
  priced: { model_name: string; pricedAs: PricedAs | null; stale: { age_seconds: number } | null },
  writePoint: (head: PointHead) => void,
): Promise<string> {
  const { env, tenant } = context;
  const decisionId = await signDecisionId(env, tenant, assigned.decisionId, context.now).catch(
    () => assigned.decisionId,
  );
  const { record } = assigned;
  record.decision_id = decisionId;
  writePoint({
    tenant,
    model_name: priced.model_name,
    priced_as: priced.pricedAs?.model ?? null,
    price_effective_at: priced.pricedAs?.price_effective_at ?? null,
    stale_age_seconds: priced.stale?.age_seconds ?? null,
    decision_id: decisionId,
    tool_name: record.tool_name,
    session_id: record.session_id,
  });
  context.waitUntil(
    handDecisions(env, tenant, [record], {
      retentionDays: config.ledger_retention_days,
      rawDays: config.ledger_raw_days,
      timeoutMs: config.ledger_timeout_ms,
    }),
  );
  return decisionId;
}
