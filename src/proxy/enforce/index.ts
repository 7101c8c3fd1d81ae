/**
 * The front door of the proxy's enforce mode (docs/design/proxy.md §8):
 * the tenant's mode and the session's holdout arm, stubs on entry that stay
 * the same for the whole session, and recalls the proxy resolves itself.
 * The entry holds only the session Durable Object's class and the mode's
 * rule at startup; the rest loads on the first enforced request.
 *
 * @example
 * import { loadEnforce, proxyModeOf } from "./enforce";
 * if (proxyModeOf(env.PROXY_MODE, config.proxy_modes, tenant) === "enforce") {
 *   const { enforceRequest, dialectOf } = await loadEnforce();
 * }
 */
export type { EnforceContext, Enforced, GateFetch, RecallPlan, SendUpstream } from "./enforce";
export { ENFORCED_ENDPOINTS, ENFORCED_TOOL, type ProxyMode, proxyModeOf, sessionHeldOut } from "./mode";
export { ENFORCE_TTL_MS, EnforceSession, MAX_ORIGINAL_CHARS } from "./store";

/**
 * Loads enforce mode's request and answer handling (./enforce.ts) on first use.
 *
 * @example
 * const { enforceRequest, dialectOf, resolveRecalls } = await loadEnforce();
 */
export function loadEnforce(): Promise<typeof import("./enforce")> {
  return import("./enforce");
}
