/**
 * The front door of src/ledger/model/: what the rest of the code may import from it.
 */
export { assign } from "./assign";
export { clearedAlone } from "./clearing-net";
export type { DecisionIdKeys, IdCheck } from "./id-signing";
export { checkDecisionId, signDecisionId, signsIds } from "./id-signing";
export {
  DECISION_ID_PATTERN,
  formatDecisionId,
  holdoutKey,
  inHoldout,
  isExplore,
  isProbe,
  parseDecisionId,
  shardFor,
  shardOfDecisionId,
  unitHash,
} from "./ids";
export { gateNet, outcomeMismatch, realizedCacheHitRate, realizedNet, requestsCost, sessionCost } from "./savings";
export type {
  ItemResult,
  LedgerClearing,
  LedgerDecision,
  LedgerPlan,
  OutcomeReport,
  PricedSession,
  SessionUsage,
  ToolSessionRow,
} from "./types";
