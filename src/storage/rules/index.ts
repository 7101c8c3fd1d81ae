/**
 * The front door of src/storage/rules/: what the rest of the code may import from it.
 */
export {
  DEFAULT_GATE_CONFIG,
  DEFAULT_LEDGER_RETENTION_DAYS,
  DEFAULT_LEDGER_SHARDS,
  HTTP_PROTOCOLS,
  MAX_EXPLORE_FRACTION,
  MAX_HOLDOUT_FRACTION,
  MAX_HORIZON,
  MAX_LEDGER_SHARDS,
  MAX_TOKENS,
  configIssues,
} from "./config-values";
export {
  ALIAS_PREFIX,
  GATE_CONFIG_KEY,
  LEDGER_SHARD_PREFIX,
  PENDING_PREFIX,
  PRICING_PREFIX,
  aliasKey,
  breakersKey,
  historyKey,
  learningAcksKey,
  learningKey,
  ledgerShardKey,
  pendingKey,
  pricingKey,
  replayPriorsKey,
} from "./keys";
export { sumsInconsistency } from "./learning-sums";
export { MODEL_NAME_PATTERN, RESERVED_MODEL_NAMES, dict, own } from "./names";
export {
  MAX_PRICE_USD_PER_MILLION,
  MAX_ROW_BYTES,
  MAX_SCHEDULED_CHANGES,
  PRICE_FIELDS,
  SOURCE_URL_MAX,
  SOURCE_URL_PROTOCOLS,
  aliasIssues,
  changeIssues,
  rowIssues,
} from "./row-values";
