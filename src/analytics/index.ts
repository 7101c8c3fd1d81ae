/**
 * The Analytics Engine data points, one layout per kind (docs/analytics.md
 * is the one place that lists their fields).
 *
 * @example
 * recordDecision(env.DECISIONS, record);
 */

export { recordBreaker } from "./breaker";
export { recordClearing } from "./clearing";
export { type DecisionRecord, recordDecision, toDataPoint } from "./decision";
export { recordPlan } from "./plan";
export { MAX_BLOB_BYTES_TOTAL, MAX_DOUBLES, MAX_INDEX_BYTES, truncateUtf8 } from "./point";
