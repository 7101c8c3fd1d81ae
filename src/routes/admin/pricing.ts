import { createRoute } from "@hono/zod-openapi";
import { ADMIN_SECURITY } from "../../auth/admin";
import { createApp } from "../../http/app";
import { ApiError } from "../../http/errors";
import { ErrorSchema } from "../../http/schema";
import { deletePricing, listPricing, putPricing, readStoredRow, rollbackPricing } from "../../pricing/admin-store";
import { currentVersion, readHistory } from "../../pricing/history";
import { PricingRowSchema } from "../../pricing/schema";
import { pricingKey } from "../../pricing/store";
import {
  ADMIN_ERRORS,
  HistorySchema,
  ModelParamSchema,
  PricingListSchema,
  RollbackSchema,
  StoredRowSchema,
  WriteOutcomeSchema,
  json,
} from "./schema";

const body = <T>(schema: T) => ({ body: { content: { "application/json": { schema } }, required: true } });
const BAD_BODY = {
  400: json(ErrorSchema, "The body is not JSON, or a field is wrong, unknown, negative or not finite; the error names it"),
  413: json(ErrorSchema, "The body is over 64 KiB"),
  415: json(ErrorSchema, "The body is not application/json"),
};
const NOT_FOUND = { 404: json(ErrorSchema, "No such row (or version)") };
const common = { tags: ["admin"], security: ADMIN_SECURITY };

const listRoute = createRoute({
  ...common,
  method: "get",
  path: "/v1/admin/pricing",
  summary: "List every pricing row and alias",
  responses: { 200: json(PricingListSchema, "Every row in KV"), ...ADMIN_ERRORS },
});

const getRoute = createRoute({
  ...common,
  method: "get",
  path: "/v1/admin/pricing/{model}",
  summary: "Read one pricing row as stored",
  request: { params: ModelParamSchema },
  responses: { 200: json(StoredRowSchema, "The row, valid or not"), ...NOT_FOUND, 400: json(ErrorSchema, "Bad model name"), ...ADMIN_ERRORS },
});

const putRoute = createRoute({
  ...common,
  method: "put",
  path: "/v1/admin/pricing/{model}",
  summary: "Write one pricing row and its alias keys",
  request: { params: ModelParamSchema, ...body(PricingRowSchema) },
  responses: { 200: json(WriteOutcomeSchema, "Written (or already so), with any warnings"), ...BAD_BODY, ...ADMIN_ERRORS },
});

const deleteRoute = createRoute({
  ...common,
  method: "delete",
  path: "/v1/admin/pricing/{model}",
  summary: "Delete one pricing row and its alias keys",
  request: { params: ModelParamSchema },
  responses: { 200: json(WriteOutcomeSchema, "Deleted"), ...NOT_FOUND, 400: json(ErrorSchema, "Bad model name"), ...ADMIN_ERRORS },
});

const historyRoute = createRoute({
  ...common,
  method: "get",
  path: "/v1/admin/pricing/{model}/history",
  summary: "List a row's earlier versions: who, when, before and after",
  request: { params: ModelParamSchema },
  responses: { 200: json(HistorySchema, "The row's history, newest first"), 400: json(ErrorSchema, "Bad model name"), ...ADMIN_ERRORS },
});

const rollbackRoute = createRoute({
  ...common,
  method: "post",
  path: "/v1/admin/pricing/{model}/rollback",
  summary: "Restore a row as it stood at a version",
  request: { params: ModelParamSchema, ...body(RollbackSchema) },
  responses: { 200: json(WriteOutcomeSchema, "Restored (itself recorded as a version)"), ...NOT_FOUND, ...BAD_BODY, ...ADMIN_ERRORS },
});

/**
 * /v1/admin/pricing: list, read, write, delete, audit and roll back rows.
 *
 * @example
 * curl -X PUT 127.0.0.1:8787/v1/admin/pricing/gpt-5 -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/json' -d '{"input":1.25,"output":10}'
 */
export const adminPricing = createApp()
  .openapi(listRoute, async (c) => {
    const { rows, aliases } = await listPricing(c.env.PRICING);
    const models: Record<string, (typeof rows)[number]["row"] & object> = {};
    const invalid: { model: string; problem: string }[] = [];
    for (const stored of rows) {
      if (stored.row !== null) models[stored.model] = stored.row;
      else invalid.push({ model: stored.model, problem: stored.problem ?? "invalid" });
    }
    return c.json({ count: rows.length, models, invalid, aliases }, 200);
  })
  .openapi(getRoute, async (c) => {
    const { model } = c.req.valid("param");
    const [stored, history] = await Promise.all([readStoredRow(c.env.PRICING, model), readHistory(c.env.PRICING, pricingKey(model))]);
    if (stored === null) throw new ApiError("not_found", `no pricing row for ${model}`);
    return c.json({ ...stored, version: currentVersion(history) }, 200);
  })
  .openapi(putRoute, async (c) => {
    const { model } = c.req.valid("param");
    return c.json(await putPricing(c.env.PRICING, model, c.req.valid("json"), c.get("admin")), 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { model } = c.req.valid("param");
    return c.json(await deletePricing(c.env.PRICING, model, c.get("admin")), 200);
  })
  .openapi(historyRoute, async (c) => {
    const { model } = c.req.valid("param");
    const history = await readHistory(c.env.PRICING, pricingKey(model));
    const first = history.entries[0];
    return c.json(
      {
        subject: pricingKey(model),
        current_version: currentVersion(history),
        earliest_restorable: first === undefined ? null : first.version - 1,
        versions: [...history.entries].reverse(),
      },
      200,
    );
  })
  .openapi(rollbackRoute, async (c) => {
    const { model } = c.req.valid("param");
    const { version } = c.req.valid("json");
    return c.json(await rollbackPricing(c.env.PRICING, model, version, c.get("admin")), 200);
  });
