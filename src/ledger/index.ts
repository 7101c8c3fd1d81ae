/**
 * The outcomes ledger's front door: everything outside src/ledger imports
 * the ledger from here (test/node/layers.test.ts checks it). Four rooms
 * behind it, each importing only the rooms before it:
 *
 * - model/: what a decision and an outcome are, their ids, the holdout
 *   draw (one `assign()` for a gate decision and a plan alike), the
 *   realized savings (imports only the core and the config's bounds);
 * - stats/: the pure statistics (intervals, the confidence sequence, the
 *   verdicts, the savings report), over model/'s types;
 * - shard/: the Durable Object, its schema and every SQL statement it
 *   runs, the rollups; it never calls the worker's side;
 * - transport/: the worker's side: the shard stubs, the deadline, the
 *   queue and its consumer, the reads that ask every shard.
 *
 * The queue consumer stays out of what this module loads: it reads a
 * message with a zod schema, which startup never needs, so the entry's
 * `queue` handler loads it on its first batch (`consumeLedgerBatch`).
 *
 * @example
 * import { assign, handDecisions, LedgerShard, type LedgerDecision } from "../ledger";
 */

export { assign } from "./model";
export { checkDecisionId, signDecisionId, signsIds, type DecisionIdKeys, type IdCheck } from "./model";
export {
  DECISION_ID_PATTERN,
  formatDecisionId,
  holdoutKey,
  inHoldout,
  isExplore,
  unitHash,
  isProbe,
  parseDecisionId,
  SESSION_ID_PATTERN,
  shardOfDecisionId,
  TOOL_NAME_PATTERN,
} from "./model";
export { requestsCost, sessionCost } from "./model";
export type {
  ItemResult,
  LedgerClearing,
  LedgerDecision,
  LedgerPlan,
  OutcomeReport,
  PricedSession,
  SessionUsage,
  ToolSessionRow,
} from "./model";

export {
  clusteredInterval,
  incompleteBeta,
  meanInterval,
  normalQuantile,
  welch,
  type ClusterSums,
  type Moments,
} from "./stats";
export {
  confidenceSequence,
  meanSequence,
  MIN_SESSIONS_PER_ARM,
  packedSequence,
  sequenceRadius,
  type SequenceResult,
  type SequenceSession,
} from "./stats";
export { holdoutFigures, rowsByTool, toolVerdicts } from "./stats";
export { BUCKET_MS, bucketFor, savingsFigures } from "./stats";

export { LedgerShard } from "./shard";
export type { LevelSums, ToolModelSums, ToolNetRow } from "./shard";
export type { ArmCounts, ReportingCounts, ToolReporting } from "./shard";

export { gatherRows, gatherSums, gatherToolPairs, gatherToolSessions } from "./transport";
export { reportOutcomes, reportSessions, type Indexed } from "./transport";
export { ledgerShard } from "./transport";
export { chunkMessages, ledgerMessage } from "./transport";
export { handDecisions } from "./transport";
export { forgetWrittenShards, writtenShards } from "./transport";

/**
 * Writes one batch of LEDGER_QUEUE (or of its dead letters) to the shards:
 * ./transport/consumer.ts, loaded on the first batch, once per isolate.
 *
 * @example
 * async queue(batch, env) { await consumeLedgerBatch(batch, env); }
 */
export async function consumeLedgerBatch(
  batch: MessageBatch<unknown>,
  env: { LEDGER?: Env["LEDGER"]; PRICING?: KVNamespace },
): Promise<void> {
  const consumer = await import("./transport/consumer");
  await consumer.consumeLedgerBatch(batch, env);
}
