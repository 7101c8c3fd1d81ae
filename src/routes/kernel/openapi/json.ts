import { z } from "@hono/zod-openapi";
import { BODY_READ_TIMEOUT_MS, ERROR_CODES, MAX_BODY_BYTES } from "../../../http";

/** One problem with one field, as the error shape and warnings carry it. */
export const FieldIssueSchema = z.object({ path: z.string(), message: z.string() });

/** The one error shape, as documented: typed clients see every code. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      issues: z.array(FieldIssueSchema),
    }),
  })
  .openapi("Error");

/**
 * A JSON response of `schema`, described: every route's responses are built
 * with it.
 *
 * @example
 * responses: { 200: json(HealthSchema, "The worker is up") }
 */
export const json = <T>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

/** An error answer, as `json(ErrorSchema, ...)` describes it. */
export type ErrorResponse = ReturnType<typeof json<typeof ErrorSchema>>;

/**
 * A required JSON request body of `schema`.
 *
 * @example
 * request: { params: ModelParamSchema, ...jsonRequest(PricingRowSchema) }
 */
export const jsonRequest = <T>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

/**
 * A JSON body a route may go without: no body (and no content type) is
 * taken as `{}`; a body sent is checked as jsonRequest's is.
 *
 * @example
 * request: { query: TenantQuerySchema, ...optionalJsonRequest(RefreshBodySchema) }
 */
export const optionalJsonRequest = <T>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: false },
});

/**
 * The answers every route that takes a body can give before its handler
 * runs: 400 (`what` says what makes the body wrong), 408 (the body did not
 * arrive in time: ./body.ts), 413 and 415.
 *
 * @example
 * responses: { 200: json(PricingWriteSchema, "Written"), ...bodyErrors("a field is wrong or unknown") }
 */
export const bodyErrors = (what: string) => ({
  400: json(ErrorSchema, what),
  408: json(ErrorSchema, `The body did not arrive within ${BODY_READ_TIMEOUT_MS / 1000} s`),
  413: json(ErrorSchema, `The body is over ${MAX_BODY_BYTES / 1024} KiB`),
  415: json(ErrorSchema, "The body is not application/json"),
});
