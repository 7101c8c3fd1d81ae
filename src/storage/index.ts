/**
 * The front door of src/storage/: what the rest of the code may import from it.
 */
export type { CachePolicy } from "./cache";
export { readLearned, rememberLearned } from "./learning";
export type { BreakerState, LearnedValue, ToolTrust, TrustFlag } from "./learning";
export { forgetListings, listValues, readListing } from "./listing";
export {
  cachePolicy,
  pricesInForce,
  readGateConfig,
  readPricing,
  rememberAlias,
  rememberGateConfig,
  rememberRow,
} from "./read";
export type { PricingRead } from "./read";
