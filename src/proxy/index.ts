/**
 * The proxy's front door (docs/design/proxy.md): an Anthropic- and
 * OpenAI-compatible pass-through under /proxy/ that observes what the gate
 * would have saved. The entry holds only this file and the session
 * Durable Object's class at startup; the proxy itself (./handler.ts and
 * everything it reads) loads on the first request under /proxy/.
 *
 * @example
 * if (isProxyUrl(request.url)) return proxyFetch(request, env, ctx, (inner) => worker.fetch(inner, env, ctx));
 */
import { lazily } from "../storage";
import type { GateFetch, ProxyEnv } from "./handler";
import { PROXY_PREFIX } from "./route";

// Loaded on the first request under /proxy/, once per isolate (a failed load is retried by the next).
const loadHandler = lazily(() => import("./handler"));

export type { GateFetch, ProxyEnv } from "./handler";
export { GATE_KEY_HEADER, MAX_PROXY_BODY_BYTES, SESSION_HEADER } from "./constants";
export { PROXY_OPERATIONS, PROXY_PREFIX, type ProxyOperation } from "./route";
export { ProxySession } from "./session-store";
export { EnforceSession } from "./enforce";

/**
 * Whether a request's URL is the proxy's, read without parsing it: the
 * entry asks this of every request, the gate's hot path included.
 *
 * @example
 * isProxyUrl("http://127.0.0.1:8787/proxy/anthropic/v1/messages") // true
 * isProxyUrl("http://127.0.0.1:8787/v1/gate") // false
 */
export function isProxyUrl(url: string): boolean {
  const scheme = url.indexOf("://");
  const path = scheme < 0 ? -1 : url.indexOf("/", scheme + 3);
  return path >= 0 && url.startsWith(PROXY_PREFIX, path);
}

/**
 * Answers a request under /proxy/, loading the proxy on first use.
 *
 * @example
 * await proxyFetch(request, env, ctx, (inner) => worker.fetch(inner, env, ctx));
 */
export async function proxyFetch(
  request: Request,
  env: ProxyEnv,
  ctx: ExecutionContext,
  gate: GateFetch,
): Promise<Response> {
  const handler = await loadHandler();
  return handler.proxyFetch(request, env, ctx, gate);
}
