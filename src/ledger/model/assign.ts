import { DECISION_ID_RANDOM_BYTES, formatDecisionId, holdoutKey, inHoldout, shardFor } from "./ids";

/**
 * A decided item's place in the ledger: its id, drawn from crypto in
 * the session's shard, and its arm, the holdout draw. A gate decision and a
 * plan each get both here, the same way. The only module that draws
 * randomness for the ledger.
 */

/** What the draw reads of the gate's config. */
export interface AssignConfig {
  ledger_shards: number;
  holdout_fraction: number;
}

/**
 * A new decision id: the session's shard (every decision of a session in
 * one place), or a random one for a decision without a session.
 *
 * @example
 * newDecisionId("acme", "session-1", 8) // "dec_5_3f9a…" (shard 5 for every decision of session-1)
 */
export function newDecisionId(tenant: string, sessionId: string | null, shards: number): string {
  const random = crypto.getRandomValues(new Uint8Array(DECISION_ID_RANDOM_BYTES));
  return formatDecisionId(shardFor(tenant, sessionId, shards, random), random);
}

/**
 * The id and the arm of one decided item: in the holdout when a hash of the
 * tenant and the session (or of the tool, or of the id when there is
 * neither) falls below `holdout_fraction`.
 *
 * @example
 * const { decisionId, holdout } = assign("acme", "session-1", "read_file", config);
 */
export function assign(
  tenant: string,
  sessionId: string | null,
  toolName: string | null,
  config: Readonly<AssignConfig>,
): { decisionId: string; holdout: boolean } {
  const decisionId = newDecisionId(tenant, sessionId, config.ledger_shards);
  return {
    decisionId,
    holdout: inHoldout(tenant, holdoutKey(sessionId, toolName, decisionId), config.holdout_fraction),
  };
}
