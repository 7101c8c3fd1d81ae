/**
 * The pure core: decision, formatting and types. Nothing here does I/O or
 * reads a clock.
 */
export * from "./break-even";
export * from "./cache-aware";
export * from "./clearing";
export * from "./constants";
export * from "./curve";
export * from "./decision";
export * from "./gaps";
export * from "./holdout";
export { describeIssues, fieldIssues } from "./issues";
export * from "./knapsack";
export * from "./level-sums";
export * from "./lifecycle";
export * from "./model-names";
export * from "./outcome";
export * from "./plan";
export * from "./plan-outcome";
export * from "./plan-search";
export * from "./pyformat";
export * from "./rates";
export * from "./robust";
export * from "./schedule";
export * from "./suggest";
export * from "./survival";
export * from "./ttl";
export type * from "./types";
