/**
 * The front door of src/ledger/shard/: what the rest of the code may import from it.
 */
export type { LevelSums, ToolModelSums, ToolNetRow } from "./learning-sums";
export type { ArmCounts, ReportingCounts, ToolReporting } from "./reporting";
export { LedgerShard } from "./shard";
export type { SumsFilter } from "./sql";
