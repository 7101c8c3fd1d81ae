import { GATE_CONFIG_KEY } from "../../storage/rules";
import { GateConfigSchema } from "../../storage/schemas";
import { putConfig, readConfigView, rollbackConfig } from "../../storage/write";
import { bodyErrors, createApp, json, jsonRequest } from "../kernel/openapi";
import { auditRoutes } from "./audit";
import { adminRoute, ConfigViewSchema } from "./schema";

const BAD_BODY = bodyErrors("The body is not JSON, or a field is wrong or unknown; the error names it");

const getRoute = adminRoute({
  method: "get",
  path: "/v1/admin/config",
  summary: "Read the gate config, as stored and as in force",
  responses: { 200: json(ConfigViewSchema, "The config") },
});

const putRoute = adminRoute({
  method: "put",
  path: "/v1/admin/config",
  summary: "Replace the gate config (priors, defaults, cache TTL); every field optional",
  request: jsonRequest(GateConfigSchema),
  responses: { 200: json(ConfigViewSchema, "Written (or already so)"), ...BAD_BODY },
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
  .route(
    "/",
    auditRoutes({
      path: "/v1/admin/config",
      subject: () => GATE_CONFIG_KEY,
      rollback: (kv, _params, version, by) => rollbackConfig(kv, version, by),
      restored: ConfigViewSchema,
      docs: {
        history: "List the gate config's earlier versions",
        historyOk: "Newest first",
        rollback: "Restore the gate config as it stood at a version",
        rollbackOk: "Restored",
        notFound: "No such version",
        bodyErrors: BAD_BODY,
      },
    }),
  );
