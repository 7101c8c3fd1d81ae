/**
 * The Analytics Engine data points, one layout per kind (docs/analytics.md
 * is the one place that lists their fields).
 *
 * @example
 * recordDecision(env.DECISIONS, record);
 */
export { recordDecision, toDataPoint, type DecisionRecord } from "./decision";
export { MAX_BLOB_BYTES_TOTAL, MAX_DOUBLES, MAX_INDEX_BYTES, truncateUtf8 } from "./point";
export { recordBreaker } from "./breaker";
export { recordClearing } from "./clearing";
export { recordPlan } from "./plan";
