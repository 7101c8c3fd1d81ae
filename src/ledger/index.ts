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
  assign,
  checkDecisionId,
  DECISION_ID_PATTERN,
  type DecisionIdKeys,
  formatDecisionId,
  holdoutKey,
  type IdCheck,
  inHoldout,
  isExplore,
  isProbe,
  parseDecisionId,
  requestsCost,
  sessionCost,
  shardOfDecisionId,
  signDecisionId,
  signsIds,
  unitHash,
} from "./model";
export type { ArmCounts, LevelSums, ReportingCounts, ToolModelSums, ToolNetRow, ToolReporting } from "./shard";
export { LedgerShard } from "./shard";
export {
  BUCKET_MS,
  bucketFor,
  type ClusterSums,
  clusteredInterval,
  confidenceSequence,
  holdoutFigures,
  incompleteBeta,
  MIN_SESSIONS_PER_ARM,
  type Moments,
  meanInterval,
  meanSequence,
  noInterval,
  normalQuantile,
  packedSequence,
  recallRangeOf,
  rowsByTool,
  type SequenceResult,
  type SequenceSession,
  savingsFigures,
  sequenceRadius,
  toolVerdicts,
  welch,
} from "./stats";
export {
  chunkMessages,
  forgetWrittenShards,
  gatherRows,
  gatherSums,
  gatherToolPairs,
  gatherToolSessions,
  handDecisions,
  type Indexed,
  ledgerMessage,
  ledgerShard,
  reportOutcomes,
  reportSessions,
  writtenShards,
} from "./transport";

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
