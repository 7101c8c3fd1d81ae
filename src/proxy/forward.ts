/**
 * @module proxy/forward
 *
 * The pass-through (docs/design/proxy.md §4): the request's body bytes go
 * upstream as they arrived (read once, never re-serialized), the answer
 * comes back as it arrives (its stream handed on, never buffered), and a
 * provider's error is the provider's. The proxy's own work (the gate's
 * decisions, the usage) reads copies, in waitUntil, off the response's path.
 */
import { ApiError, BODY_READ_TIMEOUT_MS } from "../http";
import { GATE_KEY_HEADER, MAX_PROXY_BODY_BYTES, SESSION_HEADER } from "./constants";

/**
 * How long a proxied body may take to arrive: the gate's own deadline
 * scaled to the proxy's 32 MB, so a slow link still gets one through and a
 * stalled upload is answered (408) rather than held open.
 */
export const PROXY_BODY_TIMEOUT_MS = BODY_READ_TIMEOUT_MS * 12;

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

/**
 * The request's body bytes as sent, at most {@link MAX_PROXY_BODY_BYTES}
 * (413 past it, or on a declared length past it, unread), within
 * {@link PROXY_BODY_TIMEOUT_MS} (408). Null for a request without a body.
 *
 * @example
 * const bytes = await readProxyBody(request); // Uint8Array, byte for byte what the client sent
 */
export async function readProxyBody(request: Request): Promise<Uint8Array | null> {
  if (request.body === null) return null;
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_PROXY_BODY_BYTES) throw tooLarge();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reader.cancel().catch(() => undefined);
      reject(
        new ApiError("request_timeout", `the request body did not arrive within ${PROXY_BODY_TIMEOUT_MS} ms`, [
          { path: "body", message: `must arrive whole within ${PROXY_BODY_TIMEOUT_MS} ms` },
        ]),
      );
    }, PROXY_BODY_TIMEOUT_MS);
  });
  const all = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > MAX_PROXY_BODY_BYTES) {
        reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  })();
  try {
    await Promise.race([all, expired]);
  } catch (error) {
    all.catch(() => undefined);
    if (error instanceof ApiError) throw error;
    throw new ApiError("invalid_request", "the request body broke off before its end", [
      { path: "body", message: "must be sent whole" },
    ]);
  } finally {
    clearTimeout(timer);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
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
  body: Uint8Array | null,
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
