import type { MiddlewareHandler } from "hono";
import { readBody } from "./body";
import { ApiError, invalidJson } from "./errors";

/**
 * Largest request body any route accepts: 100 batch items with every field
 * at its longest, prior ranges included, are about 71 KB.
 */
export const MAX_BODY_BYTES = 96 * 1024;

// The media types Hono's JSON validator parses; anything else would reach
// the schema as an empty body.
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;
const UTF8 = /^utf-?8$/i;
// What @hono/zod-openapi's media-type check takes after each ";".
const MEDIA_PARAMETER = /^\s*[a-zA-Z0-9-]+=[^;]+$/;

/**
 * Refuses a body that is not JSON, is declared in a charset other than
 * UTF-8 or is content-encoded (415), or is over 96 KiB (413), before any
 * handler parses it, then reads it within the body deadline (./body.ts:
 * 408 past it) and hands the handler a request holding those bytes. On the
 * paths in `bodyOptional` (routes declared with optionalJsonRequest) a
 * request with no body and no content type passes: there is no body to
 * refuse. Everywhere else it is a 415.
 *
 * @example
 * app.use("/v1/*", jsonBody(["/v1/admin/learning/refresh"]));
 */
export function jsonBody(bodyOptional: readonly string[] = []): MiddlewareHandler {
  const optional = new Set(bodyOptional);
  return async (c, next) => {
    const method = c.req.method;
    if (method !== "POST" && method !== "PUT" && method !== "PATCH") return next();
    const contentType = c.req.header("content-type");
    if (contentType === undefined && optional.has(c.req.path) && isEmpty(c.req.raw)) return next();
    checkJsonHeaders(contentType, c.req.header("content-encoding"));
    const raw = c.req.raw;
    if (raw.body === null) return next();
    // A declared length over the limit is refused unread, as Hono's body limit did (parseInt, as it read it).
    const declared = raw.headers.get("content-length");
    if (declared !== null && !raw.headers.has("transfer-encoding") && parseInt(declared, 10) > MAX_BODY_BYTES)
      throw tooLarge();
    let bytes: Uint8Array;
    try {
      bytes = await readBody(raw.body, MAX_BODY_BYTES, tooLarge);
    } catch (error) {
      // A stream the client broke off is a body that does not parse, as the validator answered it before.
      throw error instanceof ApiError ? error : invalidJson();
    }
    c.req.raw = new Request(raw, { body: bytes });
    return next();
  };
}

function isEmpty(request: Request): boolean {
  return request.body === null || request.headers.get("content-length") === "0";
}

/**
 * The media-type, charset and encoding rules of {@link jsonBody}, on the
 * request's headers alone: throws the 415 the middleware answers with. The
 * gate's direct path (src/routes/gate/direct/direct.ts) runs the same checks.
 *
 * @example
 * checkJsonHeaders("application/json; charset=utf-8", undefined) // passes
 * checkJsonHeaders("text/plain", undefined) // throws ApiError unsupported_media_type
 */
export function checkJsonHeaders(contentType: string | undefined, contentEncoding: string | undefined): void {
  // What nearly every client sends passes at the cost of one comparison.
  if (contentType === "application/json" && contentEncoding === undefined) return;
  const type = contentType ?? "";
  const [mediaType, ...parameters] = type.split(";");
  if (!JSON_MEDIA_TYPE.test(mediaType?.trim() ?? "")) {
    throw new ApiError("unsupported_media_type", "request body must be application/json", [
      {
        path: "content-type",
        message: `must be application/json, not ${type === "" ? "missing" : JSON.stringify(type.slice(0, 64))}`,
      },
    ]);
  }
  // A parameter must be name=value (RFC 9110 §8.3.1): "application/json;" or
  // "; charset" would pass here yet be refused by the routes' media-type
  // check, so every route refuses it the same way, naming the header.
  const malformed = parameters.find((parameter) => !MEDIA_PARAMETER.test(parameter));
  if (malformed !== undefined) {
    throw new ApiError("unsupported_media_type", "the content type has a malformed parameter", [
      {
        path: "content-type",
        message: `has parameter ${JSON.stringify(malformed.trim().slice(0, 32))}; each parameter after ";" must be name=value, or leave the ";" out`,
      },
    ]);
  }
  // JSON is UTF-8 (RFC 8259): a body declared otherwise would be decoded
  // as UTF-8 anyway and reach the schema garbled, so refuse it as a media
  // type, not as invalid JSON.
  const charset = parameters
    .map((parameter) => parameter.trim().match(/^charset\s*=\s*"?([^";]*)"?$/i)?.[1])
    .find((value) => value !== undefined);
  if (charset !== undefined && !UTF8.test(charset)) {
    throw new ApiError("unsupported_media_type", "a JSON body must be UTF-8", [
      {
        path: "content-type",
        message: `declares charset ${JSON.stringify(charset.slice(0, 32))}; only utf-8 is accepted`,
      },
    ]);
  }
  // Bodies are read as sent: a compressed one would fail to parse.
  const encoding = contentEncoding?.trim() ?? "";
  if (encoding !== "" && encoding.toLowerCase() !== "identity") {
    throw new ApiError("unsupported_media_type", "request bodies must not be content-encoded", [
      { path: "content-encoding", message: `is ${JSON.stringify(encoding.slice(0, 32))}; send the body uncompressed` },
    ]);
  }
}

/**
 * The 413 of a body over {@link MAX_BODY_BYTES}.
 *
 * @example
 * if (declared > MAX_BODY_BYTES) throw tooLarge();
 */
export function tooLarge(): ApiError {
  return new ApiError("payload_too_large", `request body is over ${MAX_BODY_BYTES} bytes`, [
    { path: "", message: `must be at most ${MAX_BODY_BYTES} bytes` },
  ]);
}

/**
 * Answers 405 with an Allow header for a path served under other methods.
 *
 * @example
 * app.all("/v1/gate", allowOnly("POST"));
 */
export function allowOnly(...methods: string[]): MiddlewareHandler {
  const allow = methods.join(", ");
  return async (c) => {
    throw new ApiError("method_not_allowed", `${c.req.method} is not allowed here; use ${allow}`, [], { Allow: allow });
  };
}
