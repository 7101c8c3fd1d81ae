import type { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../http";
import { readHistoryView } from "../../storage/write";
import { createApp, type ErrorResponse, ErrorSchema, json, jsonRequest } from "../kernel/openapi";
import { adminRoute, HistorySchema, RollbackSchema } from "./schema";

/** What the history and rollback routes of one audited key need. */
export interface AuditSpec<Params extends Record<string, string>, Restored> {
  /** The key's admin path, as OpenAPI writes it: "/v1/admin/pricing/{model}", "/v1/admin/config". */
  path: string;
  /** The path's parameters, when it has any. */
  params?: z.ZodObject;
  /** The audited KV key these parameters name. */
  subject: (params: Params) => string;
  /** Restores the key as it stood at a version, recorded as a change. */
  rollback: (kv: KVNamespace, params: Params, version: number, by: string) => Promise<Restored>;
  /** What a rollback answers. */
  restored: z.ZodType<Restored>;
  /** The OpenAPI document's words for both routes. */
  docs: {
    history: string;
    historyOk: string;
    rollback: string;
    rollbackOk: string;
    notFound: string;
    /** The 400, 413 and 415 of a route with a body. */
    bodyErrors: Record<400 | 413 | 415, ErrorResponse>;
    /** Extra answers of a route with path parameters (a bad model name). */
    paramErrors?: Record<400, ErrorResponse>;
  };
}

/**
 * GET <path>/history and POST <path>/rollback for one audited key, rows and
 * config alike: the history newest first, and a rollback recorded as a
 * version of its own.
 *
 * @example
 * adminConfig.route("/", auditRoutes({ path: "/v1/admin/config", subject: () => "config:gate", rollback: ..., restored: ConfigViewSchema, docs }));
 */
export function auditRoutes<Params extends Record<string, string>, Restored>(
  spec: AuditSpec<Params, Restored>,
): OpenAPIHono<AppEnv> {
  const request = spec.params === undefined ? {} : { params: spec.params };
  const historyRoute = adminRoute({
    method: "get",
    path: `${spec.path}/history`,
    summary: spec.docs.history,
    request,
    responses: { 200: json(HistorySchema, spec.docs.historyOk), ...spec.docs.paramErrors },
  });
  const rollbackRoute = adminRoute({
    method: "post",
    path: `${spec.path}/rollback`,
    summary: spec.docs.rollback,
    request: { ...request, ...jsonRequest(RollbackSchema) },
    responses: {
      200: json(spec.restored, spec.docs.rollbackOk),
      404: json(ErrorSchema, spec.docs.notFound),
      ...spec.docs.bodyErrors,
    },
  });
  // The parameters passed their schema before the handler runs.
  const paramsOf = (c: { req: { param(): Record<string, string> } }) => c.req.param() as Params;
  return createApp()
    .openapi(historyRoute, async (c) => c.json(await readHistoryView(c.env.PRICING, spec.subject(paramsOf(c))), 200))
    .openapi(rollbackRoute, async (c) => {
      const { version } = c.req.valid("json" as never) as z.infer<typeof RollbackSchema>;
      return c.json((await spec.rollback(c.env.PRICING, paramsOf(c), version, c.get("admin"))) as never, 200);
    });
}
