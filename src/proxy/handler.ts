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
import { ApiError, errorResponse } from "../http";
import { readGateConfig } from "../storage";
import { adapterFor, type ObservedEndpoint } from "./adapters";
import { ENFORCED_ENDPOINTS, type Enforced, loadEnforce, proxyModeOf, sessionHeldOut } from "./enforce";
import { readWhole, returnedHeaders, sendUpstream, splitBody } from "./forward";
import { type Exchange, ledgerSessionBase, observeExchange } from "./observe";
import { type ProxyRoute, proxyRoute } from "./route";
import { sessionOf } from "./session";
import { GATE_KEY_HEADER, SESSION_HEADER } from "./constants";
import { type ProxyTenant, proxyTenant } from "./tenant";
import { upstreamUrl } from "./upstream";

/** How the proxy asks the gate's own API in-process (the worker's fetch, with the same env and context). */
export type GateFetch = (request: Request) => Promise<Response>;

/** The bindings and variables the proxy reads. */
export type ProxyEnv = Pick<Env, "GATE_API_KEYS"> &
  Partial<Record<"ANTHROPIC_UPSTREAM" | "OPENAI_UPSTREAM" | "PROXY_MODE", string>> &
  Partial<Pick<Env, "PROXY_SESSIONS" | "PROXY_ENFORCE" | "PRICING">>;

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
    if (ENFORCED_ENDPOINTS.has(route.endpoint) && (await tenantEnforced(env, ctx, who.tenant)))
      return await enforcedFetch({ request, env, ctx, gate, route, who, target });
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

/** Whether the tenant's traffic is enforced: its `proxy_modes` entry, else PROXY_MODE; a config that cannot be read observes. */
async function tenantEnforced(env: ProxyEnv, ctx: ExecutionContext, tenant: string): Promise<boolean> {
  if (env.PRICING === undefined) return false;
  const read = await readGateConfig(env.PRICING, ctx.waitUntil.bind(ctx));
  return read.ok && proxyModeOf(env.PROXY_MODE, read.config.proxy_modes, tenant) === "enforce";
}

let enforceFaultLogged = false;

interface EnforcedCall {
  request: Request;
  env: ProxyEnv;
  ctx: ExecutionContext;
  gate: GateFetch;
  route: ProxyRoute;
  who: ProxyTenant;
  target: string;
}

/**
 * One Messages or Chat Completions request of an enforced tenant (docs/design/proxy.md §8): the
 * body read whole (it may be rewritten), the session's holdout arm drawn,
 * the request enforced (stubs, the recall tool, recalls put back) or sent
 * as it came, recalls in the answer resolved, and the exchange observed as
 * the client sent it.
 */
async function enforcedFetch({ request, env, ctx, gate, route, who, target }: EnforcedCall): Promise<Response> {
  const bytes = await readWhole(request);
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    // Not JSON: the provider answers it, as in observe mode.
  }
  const send = (body: Uint8Array) => sendUpstream(target, request, streamOf(body), route.provider);
  const endpoint = route.endpoint as ObservedEndpoint;
  const enforce = await loadEnforce();
  let enforced: Enforced | null = null;
  try {
    const wire = parsed === null ? null : adapterFor(endpoint).request(parsed);
    const dialect = enforce.dialectOf(endpoint);
    if (wire !== null && dialect !== null) {
      const hints = { ...wire, header: request.headers.get(SESSION_HEADER) };
      const session = ledgerSessionBase(sessionOf(hints).id, wire.model);
      const store = env.PROXY_ENFORCE?.get(env.PROXY_ENFORCE.idFromName(`${who.tenant}/${session}`)) ?? null;
      const context = { tenant: who.tenant, gateKey: who.key, session, store, gate };
      const config = env.PRICING === undefined ? null : await readGateConfig(env.PRICING, ctx.waitUntil.bind(ctx));
      const fraction = config?.ok ? config.config.holdout_fraction : 0;
      if (sessionHeldOut(who.tenant, session, fraction))
        ctx.waitUntil(enforce.recordHeldOut(dialect, parsed, context).catch(() => undefined));
      else enforced = await enforce.enforceRequest(dialect, bytes, parsed, context);
    }
  } catch (error) {
    // Whatever the request held, it goes upstream as the client sent it.
    console.error(
      "offload-gate: proxy: enforce: reading the request failed (it went through unchanged):",
      String(error),
    );
    enforced = null;
  }
  const first = await send(enforced?.body ?? bytes);
  const earlierAnswers: { type: string; bytes: Uint8Array }[] = [];
  const upstream =
    enforced?.recalls != null && first.ok
      ? await enforce
          .resolveRecalls(enforced.recalls, first, send, (resolved, type) =>
            earlierAnswers.push({ type, bytes: resolved }),
          )
          .catch((error: unknown) => {
            // Only the provider's own answer breaking off lands here: the proxy's faults hand the answer on.
            if (error instanceof ApiError) throw error;
            throw new ApiError("unavailable", `the ${route.provider} upstream's answer broke off`);
          })
      : first;
  let answer = upstream.body;
  if (answer !== null && upstream.ok) {
    const [toClient, toProxy] = answer.tee();
    answer = toClient;
    const exchange: Exchange = {
      route,
      tenant: who.tenant,
      gateKey: who.key,
      requestHeaders: request.headers,
      // The client's own request: observe weighs what the session would have cost unchanged, and sums its bill.
      requestBody: Promise.resolve(bytes),
      responseType: upstream.headers.get("content-type") ?? "",
      responseBody: toProxy,
      earlierAnswers,
    };
    ctx.waitUntil(observeExchange(exchange, env, gate));
  }
  return new Response(answer, {
    status: upstream.status,
    statusText: upstream.statusText,
    headers: returnedHeaders(upstream.headers),
  });
}

/** A body's bytes as a stream of declared length, as a client's request with Content-Length goes. */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new Blob([bytes]).stream().pipeThrough(new FixedLengthStream(bytes.byteLength));
}
