/**
 * The front door of src/routes/kernel/: what the rest of the code may import from it.
 */

export type { DecideContext } from "./context";
export { decideContext, gateContext } from "./context";
export { CACHE_AWARE_ECONOMICS_FIELDS, economicsIssues, gateRequestIssues } from "./cross-field";
export type { ResolvedPricing } from "./pricing";
export { ambiguityIssue, NOT_LOOKED_UP, pricedAsOf, withLifecycle } from "./pricing";
export { isRecorded, type PointHead, signAndRecord } from "./recording";
