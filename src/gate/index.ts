/**
 * The pure core: decision, formatting and types. Nothing here does I/O or
 * reads a clock.
 */
export * from "./break-even";
export * from "./clearing";
export * from "./cache-aware";
export * from "./constants";
export * from "./curve";
export * from "./decision";
export * from "./gaps";
export * from "./knapsack";
export * from "./level-sums";
export * from "./lifecycle";
export * from "./holdout";
export * from "./outcome";
export * from "./pyformat";
export * from "./rates";
export * from "./robust";
export * from "./schedule";
export type * from "./types";
export * from "./plan";
export * from "./plan-outcome";
export * from "./plan-search";
export * from "./suggest";
export * from "./ttl";

export { describeIssues, fieldIssues } from "./issues";
