/**
 * The front door of src/storage/schemas/: what the rest of the code may import from it.
 */

export type { GateConfig, GateConfigInput } from "./config";
export { GateConfigSchema, parseGateConfig } from "./config";
export type { HistoryDoc, HistoryEntry } from "./history";
export { currentVersion, HistoryEntrySchema, parseHistory, valueAt, withEntry } from "./history";
export type { BreakerState, LearnedValue, ReplayTools, ToolTrust, TrustFlag } from "./learning-schema";
export {
  BreakerStateSchema,
  LevelSumsShape,
  parseLearned,
  replayToolSchema,
  ToolTrustSchema,
  TRUST_FLAGS,
} from "./learning-schema";
export { nameRecord } from "./name-record";
export type { RowOutcome } from "./parse-row";
export { parseRow } from "./parse-row";
export type { PricingRow } from "./schema";
export { ModelNameSchema, PricingRowSchema, storedValue } from "./schema";
