import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Every error code the API answers with; the documented schema takes its enum from here. */
export const ERROR_CODES = [
  "invalid_json",
  "invalid_request",
  "unauthorized",
  "not_found",
  "conflict",
  "method_not_allowed",
  "request_timeout",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal",
  "unavailable",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One problem with one field; `path` is dotted ("items.3.horizon"), "" for the body itself. */
export interface ErrorIssue {
  path: string;
  message: string;
}

/** The one error shape every route answers with. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; issues: ErrorIssue[] };
}

const STATUS_OF: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_json: 400,
  invalid_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

/**
 * An error a handler or middleware throws to answer with the error shape.
 *
 * @example
 * throw new ApiError("not_found", "no pricing row for gpt-9");
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: ErrorIssue[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get status(): ContentfulStatusCode {
    return STATUS_OF[this.code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, issues: this.issues } };
  }
}

/**
 * The one-line summary of issues every error message uses: "path message",
 * joined by "; ".
 *
 * @example
 * summarize([{ path: "items.3.horizon", message: "must be an integer ≥ 0" }]) // "items.3.horizon must be an integer ≥ 0"
 */
export function summarize(issues: readonly ErrorIssue[]): string {
  return issues.map((issue) => (issue.path === "" ? issue.message : `${issue.path} ${issue.message}`)).join("; ");
}

/**
 * The 400 for these issues, its message their summary.
 *
 * @example
 * throw invalidRequest([{ path: "aliases.0", message: "is the model's own name" }]);
 */
export function invalidRequest(issues: ErrorIssue[]): ApiError {
  return new ApiError("invalid_request", summarize(issues), issues);
}

/**
 * The 400 for a body that does not parse as JSON.
 *
 * @example
 * throw invalidJson();
 */
export function invalidJson(): ApiError {
  return new ApiError("invalid_json", "request body is not valid JSON", [{ path: "", message: "is not valid JSON" }]);
}

/**
 * The app's one error handler: ApiErrors and Hono's own HTTP errors keep
 * their status; anything else is a fault, logged and answered with 500
 * without echoing its message.
 */
export function onError(error: Error, _c: Context): Response {
  return errorResponse(error);
}

/**
 * The answer for anything a request threw, in the one error shape, without
 * a Hono context: what {@link onError} answers, and the gate's direct path too.
 *
 * @example
 * errorResponse(new ApiError("not_found", "no pricing row for gpt-9")).status // 404
 */
export function errorResponse(error: unknown): Response {
  if (error instanceof ApiError) return jsonResponse(error.toBody(), error.status, error.headers);
  if (error instanceof HTTPException) {
    const mapped = fromHttpException(error);
    return jsonResponse(mapped.toBody(), mapped.status);
  }
  console.error("offload-gate: unhandled error", error);
  return jsonResponse(new ApiError("internal", "internal error").toBody(), 500);
}

/**
 * A JSON answer as Hono's `c.json` writes it: the body serialised once, its
 * content type and any headers given.
 *
 * @example
 * jsonResponse({ status: "ok" }, 200)
 */
export function jsonResponse(body: unknown, status: number, headers?: Record<string, string>): Response {
  return jsonTextResponse(JSON.stringify(body), status, headers);
}

/**
 * {@link jsonResponse} for a body already written as JSON (the gate's
 * answers are written from their parts: routes/gate/direct/answer-json.ts).
 *
 * @example
 * jsonTextResponse('{"status":"ok"}', 200)
 */
export function jsonTextResponse(text: string, status: number, headers?: Record<string, string>): Response {
  return new Response(text, {
    status,
    headers: headers === undefined ? JSON_HEADERS : { ...headers, "content-type": "application/json" },
  });
}

const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

function fromHttpException(error: HTTPException): ApiError {
  switch (error.status) {
    case 400:
      // Hono's JSON validator throws this for a body that does not parse.
      if (error.message.includes("JSON")) {
        return invalidJson();
      }
      return new ApiError("invalid_request", error.message || "bad request");
    case 401:
      return new ApiError("unauthorized", error.message || "unauthorized");
    case 413:
      return new ApiError("payload_too_large", "request body is too large");
    case 415:
      // @hono/zod-openapi's media-type check, for a type jsonBody() let through.
      return new ApiError("unsupported_media_type", "request body must be application/json", [
        { path: "content-type", message: "must be application/json, with name=value parameters if any" },
      ]);
    default:
      return new ApiError("invalid_request", error.message || "bad request");
  }
}

/** The app's answer for a route it does not serve. */
export function notFound(c: Context): Response {
  return c.json(new ApiError("not_found", `no route for ${c.req.method} ${c.req.path}`).toBody(), 404);
}
