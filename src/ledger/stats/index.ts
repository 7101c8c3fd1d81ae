/**
 * The front door of src/ledger/stats/: what the rest of the code may import from it.
 */

export type { ToolPairList } from "./pairs";
export { covariateCell, mergePairs, orderTools, packRows, rowsOfPairs } from "./pairs";
export type { CacheMissSums, LedgerSums, RecallRangeSums, SeriesBucket, ToolRecallRange } from "./report";
export { BUCKET_MS, bucketFor, emptySums, mergeSums, recallRangeOf, savingsFigures } from "./report";
export type { SequenceResult, SequenceSession } from "./sequence";
export {
  confidenceSequence,
  MIN_SESSIONS_PER_ARM,
  meanSequence,
  noInterval,
  packedSequence,
  sequenceRadius,
} from "./sequence";
export type { ClusterSums, Moments } from "./stats";
export { clusteredInterval, incompleteBeta, meanInterval, normalQuantile, welch } from "./stats";
export { holdoutFigures, rowsByTool, toolVerdicts } from "./verdicts";
