import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../http";
import { pricingKey } from "../../storage/rules";
import { PricingRowSchema } from "../../storage/schemas";
import {
  deletePricing,
  historyVersion,
  listPricing,
  patchPricing,
  putPricing,
  readStoredRow,
  rollbackPricing,
} from "../../storage/write";
import { bodyErrors, createApp, ErrorSchema, json, jsonRequest } from "../kernel/openapi";
import { auditRoutes } from "./audit";
import {
  adminRoute,
  MergePatchSchema,
  ModelParamSchema,
  PricingListSchema,
  StoredRowSchema,
  WriteOutcomeSchema,
} from "./schema";

const BAD_BODY = bodyErrors(
  "The body is not JSON, or a field is wrong, unknown, negative or not finite; the error names it",
);
const BAD_MODEL = { 400: json(ErrorSchema, "Bad model name") };
const NOT_FOUND = "No such row (or version)";

const listRoute = adminRoute({
  method: "get",
  path: "/v1/admin/pricing",
  summary: "List every pricing row and alias",
  responses: { 200: json(PricingListSchema, "Every row in KV") },
});

const getRoute = adminRoute({
  method: "get",
  path: "/v1/admin/pricing/{model}",
  summary: "Read one pricing row as stored",
  request: { params: ModelParamSchema },
  responses: { 200: json(StoredRowSchema, "The row, valid or not"), 404: json(ErrorSchema, NOT_FOUND), ...BAD_MODEL },
});

// Caches the body as text before the validator parses that text, so the
// handler can still see a price literal that underflowed to 0 (PUT and PATCH).
const cacheText: MiddlewareHandler[] = [
  async (c, next) => {
    await c.req.text();
    await next();
  },
];

const putRoute = adminRoute({
  method: "put",
  path: "/v1/admin/pricing/{model}",
  summary: "Write one pricing row and its alias keys",
  middleware: cacheText,
  request: { params: ModelParamSchema, ...jsonRequest(PricingRowSchema) },
  responses: { 200: json(WriteOutcomeSchema, "Written (or already so), with any warnings"), ...BAD_BODY },
});

const patchRoute = adminRoute({
  method: "patch",
  path: "/v1/admin/pricing/{model}",
  summary: "Change some fields of one pricing row (a JSON merge patch: null removes a field)",
  middleware: cacheText,
  request: {
    params: ModelParamSchema,
    body: {
      content: {
        "application/merge-patch+json": { schema: MergePatchSchema },
        "application/json": { schema: MergePatchSchema },
      },
      required: true,
    },
  },
  responses: {
    200: json(WriteOutcomeSchema, "Written (or already so), with any warnings"),
    404: json(ErrorSchema, "No such row: create it with PUT"),
    ...BAD_BODY,
  },
});

const deleteRoute = adminRoute({
  method: "delete",
  path: "/v1/admin/pricing/{model}",
  summary: "Delete one pricing row and its alias keys",
  request: { params: ModelParamSchema },
  responses: { 200: json(WriteOutcomeSchema, "Deleted"), 404: json(ErrorSchema, NOT_FOUND), ...BAD_MODEL },
});

/**
 * /v1/admin/pricing: list, read, write, patch, delete, audit and roll back rows.
 *
 * @example
 * curl -X PUT 127.0.0.1:8787/v1/admin/pricing/gpt-5 -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/json' -d '{"input":1.25,"output":10}'
 * curl -X PATCH 127.0.0.1:8787/v1/admin/pricing/gpt-5 -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/merge-patch+json' -d '{"input":1.5}'
 */
export const adminPricing = createApp()
  .openapi(listRoute, async (c) => {
    const { rows, aliases } = await listPricing(c.env.PRICING);
    // fromEntries defines own keys: a row stored as "__proto__" is listed, not lost.
    const models = Object.fromEntries(
      rows.flatMap((stored) => (stored.row === null ? [] : [[stored.model, stored.row] as const])),
    );
    const invalid = rows.flatMap((stored) =>
      stored.row === null ? [{ model: stored.model, problem: stored.problem ?? "invalid" }] : [],
    );
    return c.json({ count: rows.length, models, invalid, aliases }, 200);
  })
  .openapi(getRoute, async (c) => {
    const { model } = c.req.valid("param");
    // A corrupt history must not hide the row: it is flagged instead.
    const [stored, history] = await Promise.all([
      readStoredRow(c.env.PRICING, model),
      historyVersion(c.env.PRICING, pricingKey(model)),
    ]);
    if (stored === null) throw new ApiError("not_found", `no pricing row for ${model}`);
    return c.json({ ...stored, version: history.version, history_problem: history.problem }, 200);
  })
  .openapi(putRoute, async (c) => {
    const { model } = c.req.valid("param");
    const text = await c.req.text();
    return c.json(await putPricing(c.env.PRICING, model, c.req.valid("json"), c.get("admin"), undefined, text), 200);
  })
  .openapi(patchRoute, async (c) => {
    const { model } = c.req.valid("param");
    const text = await c.req.text();
    c.req.valid("json");
    // The text, parsed again: a record's parse assigns keys, which would turn
    // an own "__proto__" into a prototype instead of a field to refuse.
    return c.json(
      await patchPricing(c.env.PRICING, model, JSON.parse(text) as Record<string, unknown>, c.get("admin"), text),
      200,
    );
  })
  .openapi(deleteRoute, async (c) => {
    const { model } = c.req.valid("param");
    return c.json(await deletePricing(c.env.PRICING, model, c.get("admin")), 200);
  })
  .route(
    "/",
    auditRoutes({
      path: "/v1/admin/pricing/{model}",
      params: ModelParamSchema,
      subject: ({ model }: { model: string }) => pricingKey(model),
      rollback: (kv, { model }, version, by) => rollbackPricing(kv, model, version, by),
      restored: WriteOutcomeSchema,
      docs: {
        history: "List a row's earlier versions: who, when, before and after",
        historyOk: "The row's history, newest first",
        rollback: "Restore a row as it stood at a version",
        rollbackOk: "Restored (itself recorded as a version)",
        notFound: NOT_FOUND,
        bodyErrors: BAD_BODY,
        paramErrors: BAD_MODEL,
      },
    }),
  );
