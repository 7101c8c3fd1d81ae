/**
 * The front door of src/routes/kernel/: what the rest of the code may import from it.
 */
export { decideContext, gateContext } from "./context";
export type { DecideContext } from "./context";
export { CACHE_AWARE_ECONOMICS_FIELDS, economicsIssues, gateRequestIssues } from "./cross-field";
export { NOT_LOOKED_UP, pricedAsOf, withLifecycle } from "./pricing";
export type { ResolvedPricing } from "./pricing";
export { isRecorded } from "./recorded";
