/**
 * @module proxy/forward
 *
 * The pass-through (docs/design/proxy.md §4): the request's body bytes go
 * upstream as they arrive (streamed, never re-serialized), the answer
 * comes back as it arrives (its stream handed on, never buffered), and a
 * provider's error is the provider's. The proxy's own work (the gate's
 * decisions, the usage) reads copies, in waitUntil, off the response's path.
 */
import { ApiError, readBody } from "../http";
import { GATE_KEY_HEADER, MAX_PROXY_BODY_BYTES, SESSION_HEADER } from "./constants";

// Hop-by-hop headers (RFC 9110 §7.6.1), the ones the runtime sets itself, the
// gate's own (the provider never sees the gate key) and Cloudflare's.
const DROPPED_REQUEST = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "content-length",
  "x-real-ip",
  GATE_KEY_HEADER,
  SESSION_HEADER,
]);
/** How long the proxy's own copy of an upload may take to arrive: past it the exchange is not observed. */
const COPY_DEADLINE_MS = 5 * 60 * 1000;
const DROPPED_RESPONSE = new Set(["connection", "keep-alive", "transfer-encoding", "trailer", "upgrade"]);

/**
 * The headers that go upstream: the client's, the provider's key among
 * them untouched, less hop-by-hop headers, the gate's and Cloudflare's.
 *
 * @example
 * forwardedHeaders(new Headers({ "x-api-key": "sk-…", "x-offload-gate-key": "…" })).has("x-offload-gate-key") // false
 */
export function forwardedHeaders(headers: Headers): Headers {
  const out = new Headers();
  for (const [name, value] of headers) {
    if (DROPPED_REQUEST.has(name) || name.startsWith("cf-")) continue;
    out.append(name, value);
  }
  return out;
}

/**
 * The headers that come back: the provider's, less hop-by-hop ones; a body
 * the runtime decoded and encodes again loses its original length.
 *
 * @example
 * returnedHeaders(upstream.headers).get("request-id") // the provider's, as sent
 */
export function returnedHeaders(headers: Headers): Headers {
  const out = new Headers();
  const encoded = headers.has("content-encoding");
  for (const [name, value] of headers) {
    if (DROPPED_RESPONSE.has(name) || (encoded && name === "content-length")) continue;
    out.append(name, value);
  }
  return out;
}

/** The request's body as it goes upstream, and the proxy's own copy of it (null when there is none to read). */
export interface SplitBody {
  upstream: ReadableStream<Uint8Array> | null;
  copy: Promise<Uint8Array | null>;
}

/**
 * The request's body, streamed upstream as it arrives (never held back
 * until it is whole: the upload to the provider overlaps the client's), and
 * with `keepCopy` a second branch the proxy reads for itself through the
 * gate's bounded reader (src/http/body.ts), at most
 * {@link MAX_PROXY_BODY_BYTES} of it (past that its copy is null). A
 * declared length over the limit is a 413 naming `body`, before anything is
 * sent; a declared length is kept upstream, so the provider sees the same
 * framing the client sent: workerd keeps a body's known length on both
 * branches of its tee, so no length-fixing stream is piped after it (one
 * cost the upload a copy through JavaScript; bench/proxy.mjs counts any
 * request that reached the mock chunked, docs/performance/proxy.md).
 *
 * @example
 * const { upstream, copy } = splitBody(request, true);
 */
export function splitBody(request: Request, keepCopy: boolean): SplitBody {
  if (request.body === null) return { upstream: null, copy: Promise.resolve(null) };
  const length = declaredLength(request);
  if (length !== null && length > MAX_PROXY_BODY_BYTES) throw tooLarge();
  let upstream: ReadableStream<Uint8Array> = request.body;
  let copy: Promise<Uint8Array | null> = Promise.resolve(null);
  if (keepCopy) {
    const [toUpstream, toProxy] = upstream.tee();
    upstream = toUpstream;
    // Past the limit, or past the deadline, the proxy observes nothing; the upload is untouched.
    copy = readBody(toProxy, MAX_PROXY_BODY_BYTES, tooLarge, {
      declaredBytes: length,
      deadlineMs: COPY_DEADLINE_MS,
    }).catch(() => null);
  }
  return { upstream, copy };
}

/**
 * A request's body read whole, for a request the proxy may rewrite (enforce
 * mode), through the same bounded reader as the copy: a declared or actual
 * length over {@link MAX_PROXY_BODY_BYTES} is a 413 naming `body`, before
 * anything is sent.
 *
 * @example
 * const bytes = await readWhole(request);
 */
export async function readWhole(request: Request): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  const length = declaredLength(request);
  if (length !== null && length > MAX_PROXY_BODY_BYTES) throw tooLarge();
  return readBody(request.body, MAX_PROXY_BODY_BYTES, tooLarge, {
    declaredBytes: length,
    deadlineMs: COPY_DEADLINE_MS,
  });
}

/** The request's declared content-length, or null when it sent none (or none that parses). */
function declaredLength(request: Request): number | null {
  const declared = request.headers.get("content-length");
  return declared !== null && /^\d+$/.test(declared.trim()) ? Number(declared) : null;
}

function tooLarge(): ApiError {
  return new ApiError("payload_too_large", `request body is larger than ${MAX_PROXY_BODY_BYTES} bytes`, [
    { path: "body", message: `must be at most ${MAX_PROXY_BODY_BYTES} bytes (the provider's own limit)` },
  ]);
}

/**
 * Sends the request upstream once (no retry, redirects handed back, not
 * followed). An upstream that cannot be reached is a 503 in the one error
 * shape; anything the upstream answers is returned as it is.
 *
 * @example
 * const upstream = await sendUpstream("https://api.anthropic.com/v1/messages", request, bytes, "anthropic");
 */
export async function sendUpstream(
  url: string,
  request: Request,
  body: ReadableStream<Uint8Array> | null,
  provider: string,
): Promise<Response> {
  try {
    return await fetch(url, {
      method: request.method,
      headers: forwardedHeaders(request.headers),
      body,
      redirect: "manual",
    });
  } catch (error) {
    // The message names the host's failure, never the request's headers (the provider key is in them).
    console.error(`offload-gate: proxy: the ${provider} upstream could not be reached:`, errorName(error));
    throw new ApiError("unavailable", `the ${provider} upstream could not be reached; nothing was sent twice`);
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : "unknown error";
}
