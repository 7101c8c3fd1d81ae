/**
 * The front door of src/storage/rules/: what the rest of the code may import from it.
 */
export {
  configIssues,
  DEFAULT_GATE_CONFIG,
  DEFAULT_LEDGER_RETENTION_DAYS,
  DEFAULT_LEDGER_SHARDS,
  HTTP_PROTOCOLS,
  MAX_EXPLORE_FRACTION,
  MAX_HOLDOUT_FRACTION,
  MAX_HORIZON,
  MAX_LEDGER_SHARDS,
  MAX_PROXY_MODE_TENANTS,
  MAX_TOKENS,
  PROXY_MODES,
  type ProxyMode,
} from "./config-values";
export {
  ALIAS_PREFIX,
  aliasKey,
  breakersKey,
  GATE_CONFIG_KEY,
  historyKey,
  LEDGER_SHARD_PREFIX,
  learningAcksKey,
  learningKey,
  ledgerShardKey,
  PENDING_PREFIX,
  PRICING_PREFIX,
  pendingKey,
  pricingKey,
  replayPriorsKey,
} from "./keys";
export { sumsInconsistency } from "./learning-sums";
export {
  AGENT_ID_PATTERN,
  dict,
  MAX_CALL_INDEX,
  MODEL_NAME_PATTERN,
  OBSERVED_TOOL_PREFIX,
  own,
  RESERVED_MODEL_NAMES,
  SESSION_ID_PATTERN,
  TOOL_NAME_PATTERN,
} from "./names";
export {
  aliasIssues,
  changeIssues,
  MAX_PRICE_USD_PER_MILLION,
  MAX_ROW_BYTES,
  MAX_SCHEDULED_CHANGES,
  PRICE_FIELDS,
  rowIssues,
  SOURCE_URL_MAX,
  SOURCE_URL_PROTOCOLS,
} from "./row-values";
