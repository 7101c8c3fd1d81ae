/**
 * The front door of src/storage/schemas/: what the rest of the code may import from it.
 */
export { DEFAULT_GATE_CONFIG, GateConfigSchema, MAX_HORIZON, MAX_TOKENS, parseGateConfig } from "./config";
export type { GateConfig, GateConfigInput } from "./config";
export { HistoryEntrySchema, currentVersion, parseHistory, valueAt, withEntry } from "./history";
export type { HistoryDoc, HistoryEntry } from "./history";
export {
  BreakerStateSchema,
  LevelSumsShape,
  TRUST_FLAGS,
  ToolTrustSchema,
  parseLearned,
  replayToolSchema,
} from "./learning-schema";
export type { BreakerState, LearnedValue, ReplayTools, ToolTrust, TrustFlag } from "./learning-schema";
export { nameRecord } from "./name-record";
export { parseRow } from "./parse-row";
export type { RowOutcome } from "./parse-row";
export {
  MAX_PRICE_USD_PER_MILLION,
  MODEL_NAME_PATTERN,
  ModelNameSchema,
  PRICE_FIELDS,
  PricingRowSchema,
  storedValue,
} from "./schema";
export type { PricingRow } from "./schema";
