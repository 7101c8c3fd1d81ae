/**
 * @module proxy/handler
 *
 * One proxied request, start to end (docs/design/proxy.md §4): the route,
 * the tenant (401 before anything goes upstream), the configured upstream,
 * the body's bytes, one upstream call, and the answer handed back as it
 * arrives. What the gate would have done is worked out from copies, in
 * waitUntil, and can only fail open: the answer never waits for it and
 * never changes because of it.
 */
import { errorResponse } from "../http";
import { returnedHeaders, sendUpstream, splitBody } from "./forward";
import { type Exchange, observeExchange } from "./observe";
import { proxyRoute } from "./route";
import { GATE_KEY_HEADER } from "./constants";
import { proxyTenant } from "./tenant";
import { upstreamUrl } from "./upstream";

/** How the proxy asks the gate's own API in-process (the worker's fetch, with the same env and context). */
export type GateFetch = (request: Request) => Promise<Response>;

/** The bindings and variables the proxy reads. */
export type ProxyEnv = Pick<Env, "GATE_API_KEYS"> &
  Partial<Record<"ANTHROPIC_UPSTREAM" | "OPENAI_UPSTREAM", string>> &
  Partial<Pick<Env, "PROXY_SESSIONS">>;

/**
 * Answers one request under /proxy/: the provider's answer, byte for byte
 * and as it streams, or one of the proxy's own errors in the one error
 * shape (404 unknown path, 405, 401, 413, 503 upstream unreachable or
 * misconfigured).
 *
 * @example
 * const res = await proxyFetch(request, env, ctx, (inner) => worker.fetch(inner, env, ctx));
 */
export async function proxyFetch(
  request: Request,
  env: ProxyEnv,
  ctx: ExecutionContext,
  gate: GateFetch,
): Promise<Response> {
  try {
    const url = new URL(request.url);
    const route = proxyRoute(request.method, url.pathname);
    const who = await proxyTenant(env.GATE_API_KEYS, request.headers.get(GATE_KEY_HEADER), route.pathKey);
    const target = upstreamUrl(env, route.provider, route.path, url.search);
    const observed = route.endpoint !== "passthrough";
    const body = splitBody(request, observed);
    const upstream = await sendUpstream(target, request, body.upstream, route.provider);
    let answer = upstream.body;
    if (answer !== null && observed && upstream.ok) {
      const [toClient, toProxy] = answer.tee();
      answer = toClient;
      const exchange: Exchange = {
        route,
        tenant: who.tenant,
        gateKey: who.key,
        requestHeaders: request.headers,
        requestBody: body.copy,
        responseType: upstream.headers.get("content-type") ?? "",
        responseBody: toProxy,
      };
      ctx.waitUntil(observeExchange(exchange, env, gate));
    }
    return new Response(answer, {
      status: upstream.status,
      statusText: upstream.statusText,
      headers: returnedHeaders(upstream.headers),
    });
  } catch (error) {
    return errorResponse(error);
  }
}
