/**
 * The front door of the proxy's enforce mode (docs/design/proxy.md §8):
 * stubs on entry, sticky for the session; recalls resolved by the proxy;
 * the holdout. The entry holds only the session Durable Object's class at
 * startup; the rest loads with the proxy's handler.
 *
 * @example
 * import { EnforceSession } from "./enforce";
 */
export { EnforceSession } from "./store";
