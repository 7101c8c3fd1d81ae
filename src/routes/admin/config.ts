import { createRoute } from "@hono/zod-openapi";
import { ADMIN_SECURITY } from "../../auth/admin";
import { createApp } from "../../http/app";
import { ErrorSchema } from "../../http/schema";
import { putConfig, readConfigView, rollbackConfig } from "../../pricing/admin-config";
import { GATE_CONFIG_KEY, GateConfigSchema } from "../../pricing/config";
import { currentVersion, readHistory } from "../../pricing/history";
import { ADMIN_ERRORS, ConfigViewSchema, HistorySchema, RollbackSchema, json } from "./schema";

const body = <T>(schema: T) => ({ body: { content: { "application/json": { schema } }, required: true } });
const BAD_BODY = {
  400: json(ErrorSchema, "The body is not JSON, or a field is wrong or unknown; the error names it"),
  413: json(ErrorSchema, "The body is over 64 KiB"),
  415: json(ErrorSchema, "The body is not application/json"),
};
const common = { tags: ["admin"], security: ADMIN_SECURITY };

const getRoute = createRoute({
  ...common,
  method: "get",
  path: "/v1/admin/config",
  summary: "Read the gate config, as stored and as in force",
  responses: { 200: json(ConfigViewSchema, "The config"), ...ADMIN_ERRORS },
});

const putRoute = createRoute({
  ...common,
  method: "put",
  path: "/v1/admin/config",
  summary: "Replace the gate config (priors, defaults, cache TTL); every field optional",
  request: body(GateConfigSchema),
  responses: { 200: json(ConfigViewSchema, "Written (or already so)"), ...BAD_BODY, ...ADMIN_ERRORS },
});

const historyRoute = createRoute({
  ...common,
  method: "get",
  path: "/v1/admin/config/history",
  summary: "List the gate config's earlier versions",
  responses: { 200: json(HistorySchema, "Newest first"), ...ADMIN_ERRORS },
});

const rollbackRoute = createRoute({
  ...common,
  method: "post",
  path: "/v1/admin/config/rollback",
  summary: "Restore the gate config as it stood at a version",
  request: body(RollbackSchema),
  responses: { 200: json(ConfigViewSchema, "Restored"), 404: json(ErrorSchema, "No such version"), ...BAD_BODY, ...ADMIN_ERRORS },
});

/**
 * /v1/admin/config: read, replace, audit and roll back `config:gate`.
 *
 * @example
 * curl -X PUT 127.0.0.1:8787/v1/admin/config -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/json' -d '{"expected_conversation_depth":6,"p_recall":0.2}'
 */
export const adminConfig = createApp()
  .openapi(getRoute, async (c) => c.json(await readConfigView(c.env.PRICING), 200))
  .openapi(putRoute, async (c) => c.json(await putConfig(c.env.PRICING, c.req.valid("json"), c.get("admin")), 200))
  .openapi(historyRoute, async (c) => {
    const history = await readHistory(c.env.PRICING, GATE_CONFIG_KEY);
    const first = history.entries[0];
    return c.json(
      {
        subject: GATE_CONFIG_KEY,
        current_version: currentVersion(history),
        earliest_restorable: first === undefined ? null : first.version - 1,
        versions: [...history.entries].reverse(),
      },
      200,
    );
  })
  .openapi(rollbackRoute, async (c) =>
    c.json(await rollbackConfig(c.env.PRICING, c.req.valid("json").version, c.get("admin")), 200),
  );
