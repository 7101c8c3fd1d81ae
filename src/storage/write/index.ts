/**
 * The front door of src/storage/write/: what the rest of the code may import from it.
 */
export { deleteStrayAlias, listAliases, strayReason } from "./aliases";
export { BREAKER_MODES, putBreakerMode, readOverrides, rollbackOverrides } from "./breakers";
export { canonicalJson } from "./canonical";
export { putConfig, readConfigView, rollbackConfig } from "./config";
export { historyVersion, readHistoryView } from "./history";
export { withKvRetry } from "./kv-retry";
export { putAck, readAcks, rollbackAcks } from "./learning-acks";
export { deletePending } from "./pending";
export { putReplayPriors, ReplayPriorsSchema, readReplayPriors, rollbackReplayPriors } from "./replay-priors";
export { deletePricing, listPricing, patchPricing, putPricing, readStoredRow, rollbackPricing } from "./rows";
