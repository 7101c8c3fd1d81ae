/**
 * The front door of src/storage/: what the rest of the code may import from it.
 */
export type { CachePolicy } from "./cache";
export { lazily } from "./checked";
export type { BreakerState, LearnedValue, ToolTrust, TrustFlag } from "./learning";
export { readLearned, rememberLearned } from "./learning";
export { forgetListings, listValues, readListing } from "./listing";
export type { PricingRead } from "./read";
export {
  cachePolicy,
  pricesInForce,
  readGateConfig,
  readPricing,
  rememberAlias,
  rememberGateConfig,
  rememberRow,
} from "./read";
