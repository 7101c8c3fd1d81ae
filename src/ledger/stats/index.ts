/**
 * The front door of src/ledger/stats/: what the rest of the code may import from it.
 */
export { covariateCell, mergePairs, orderTools, packRows, rowsOfPairs } from "./pairs";
export type { ToolPairList } from "./pairs";
export { BUCKET_MS, bucketFor, emptySums, mergeSums, savingsFigures } from "./report";
export type { LedgerSums, SeriesBucket } from "./report";
export { MIN_SESSIONS_PER_ARM, confidenceSequence, meanSequence, packedSequence, sequenceRadius } from "./sequence";
export type { SequenceResult, SequenceSession } from "./sequence";
export { clusteredInterval, incompleteBeta, meanInterval, normalQuantile, welch } from "./stats";
export type { ClusterSums, Moments } from "./stats";
export { holdoutFigures, rowsByTool, toolVerdicts } from "./verdicts";
