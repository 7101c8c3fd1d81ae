import { createRoute } from "@hono/zod-openapi";
import { GATE_SECURITY, OPEN_TENANT } from "../../auth";
import { ApiError } from "../../http";
import { readPublished, refreshLearning } from "../../learning/refresh";
import { breakersKey, learningAcksKey, own, replayPriorsKey } from "../../storage/rules";
import {
  putAck,
  putBreakerMode,
  putReplayPriors,
  ReplayPriorsSchema,
  readOverrides,
  rollbackAcks,
  rollbackOverrides,
  rollbackReplayPriors,
} from "../../storage/write";
import { adminRoute, auditRoutes } from "../admin";
import {
  bodyErrors,
  CALLER_ERRORS,
  createApp,
  ErrorSchema,
  json,
  jsonRequest,
  optionalJsonRequest,
} from "../kernel/openapi";
import { requireKnownTenant } from "./known-tenant";
import {
  AcksViewSchema,
  AckWriteSchema,
  AckWrittenSchema,
  BreakerOverridesSchema,
  BreakerWriteSchema,
  BreakerWrittenSchema,
  LearningViewSchema,
  RefreshBodySchema,
  RefreshReportSchema,
  ReplayImportedSchema,
  ReplayPriorsViewSchema,
  TenantParamSchema,
  TenantQuerySchema,
} from "./schema";
import { readLearningView } from "./view";

const BAD_QUERY = {
  400: json(ErrorSchema, "tenant is missing or not a tenant name, or another parameter was sent; the error names it"),
};
const BAD_BODY = bodyErrors("The body is not JSON, or tool_name or state is wrong; the error names it");

/**
 * GET …/history and POST …/rollback for a tenant's audited learning key
 * (imported priors, acknowledgements, breaker overrides): each is applied by
 * the next refresh, as the breaker overrides are.
 *
 * @example
 * tenantAudit({ path: "/v1/admin/learning/acks/{tenant}", subject: learningAcksKey, rollback: rollbackAcks, restored: AcksViewSchema, what: "acknowledgements of flagged reporting", restoredWhat: "acknowledgements" })
 */
function tenantAudit<Restored>(spec: {
  path: string;
  subject: (tenant: string) => string;
  rollback: (kv: KVNamespace, tenant: string, version: number, by: string) => Promise<Restored>;
  restored: Parameters<typeof auditRoutes<{ tenant: string }, Restored>>[0]["restored"];
  what: string;
  restoredWhat: string;
  bodyErrors?: ReturnType<typeof bodyErrors>;
}) {
  return auditRoutes<{ tenant: string }, Restored>({
    path: spec.path,
    params: TenantParamSchema,
    subject: (params) => spec.subject(params.tenant),
    rollback: (kv, params, version, by) => spec.rollback(kv, params.tenant, version, by),
    restored: spec.restored,
    docs: {
      history: `List a tenant's earlier ${spec.what}`,
      historyOk: "Newest first",
      rollback: `Restore a tenant's ${spec.restoredWhat} as they stood at a version (applied at the next refresh)`,
      rollbackOk: "Restored",
      notFound: "No such version",
      bodyErrors: spec.bodyErrors ?? bodyErrors("The body is not JSON or version is wrong; the error names it"),
      paramErrors: { 400: json(ErrorSchema, "tenant is not a tenant name") },
    },
  });
}

export const learningRoute = createRoute({
  method: "get",
  path: "/v1/learning",
  summary:
    "What the gate learned for the caller's tenant: priors per tool and model with their ranges, the config's values, the breakers",
  tags: ["learning"],
  security: GATE_SECURITY,
  responses: { 200: json(LearningViewSchema, "The learning view"), ...CALLER_ERRORS },
});

const adminLearningRoute = adminRoute({
  method: "get",
  path: "/v1/admin/learning",
  summary: "Any tenant's learning view",
  request: { query: TenantQuerySchema },
  responses: { 200: json(LearningViewSchema, "The learning view"), ...BAD_QUERY },
});

/** The refresh's path: its body is optional (jsonBody lets no body at all through here). */
export const REFRESH_PATH = "/v1/admin/learning/refresh";

const refreshRoute = adminRoute({
  method: "post",
  path: REFRESH_PATH,
  summary: "Recompute a tenant's learned priors and breakers now, and publish them (body: {} or none)",
  request: { query: TenantQuerySchema, ...optionalJsonRequest(RefreshBodySchema) },
  responses: {
    200: json(RefreshReportSchema, "What the refresh did"),
    ...BAD_QUERY,
    ...bodyErrors("The body is not JSON or not {}; the error says which"),
  },
});

const breakerRoute = adminRoute({
  method: "put",
  path: "/v1/admin/learning/breakers/{tenant}",
  summary: "Force a tool's breaker open or closed, or hand it back to the rule (auto); audited, then refreshed",
  request: { params: TenantParamSchema, ...jsonRequest(BreakerWriteSchema) },
  responses: {
    200: json(BreakerWrittenSchema, "Written (or already so), and the tenant refreshed"),
    404: json(ErrorSchema, "The tenant's ledger has never seen this tool"),
    ...BAD_BODY,
  },
});

const ackRoute = adminRoute({
  method: "put",
  path: "/v1/admin/learning/acks/{tenant}",
  summary:
    "Acknowledge a tool's flagged reporting, so its p is learned again (or withdraw it: acknowledged false); audited, then refreshed",
  request: { params: TenantParamSchema, ...jsonRequest(AckWriteSchema) },
  responses: {
    200: json(AckWrittenSchema, "Written (or already so), and the tenant refreshed"),
    404: json(
      ErrorSchema,
      "The tenant's ledger has never seen this tool, or no gate key names the tenant and it has no data",
    ),
    ...bodyErrors("The body is not JSON, or tool_name or acknowledged is wrong; the error names it"),
  },
});

const importRoute = adminRoute({
  method: "post",
  path: "/v1/admin/learning/import",
  summary:
    "Store priors measured from replayed history as the tenant's replay level (npm run replay -- --priors); audited, then refreshed",
  request: { query: TenantQuerySchema, ...jsonRequest(ReplayPriorsSchema) },
  responses: {
    200: json(ReplayImportedSchema, "Stored (or already so), and the tenant refreshed"),
    404: json(ErrorSchema, "No gate key names the tenant and it has no data (no ledger rows, no earlier import)"),
    ...BAD_QUERY,
    ...bodyErrors("The body is not JSON or not the replay priors' shape; the error names the field"),
  },
});

/**
 * GET /v1/learning, GET /v1/admin/learning?tenant=, POST
 * /v1/admin/learning/refresh?tenant= and the audited breaker overrides
 * (PUT /v1/admin/learning/breakers/{tenant}, with history and rollback),
 * the audited acknowledgements of flagged reporting (PUT
 * /v1/admin/learning/acks/{tenant}, with history and rollback),
 * and the audited import of replay priors (POST
 * /v1/admin/learning/import?tenant=, history and rollback under
 * /v1/admin/learning/import/{tenant}).
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/learning
 * curl -X POST '127.0.0.1:8787/v1/admin/learning/refresh?tenant=acme' -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/json' -d '{}'
 * curl -X PUT 127.0.0.1:8787/v1/admin/learning/breakers/acme -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/json' -d '{"tool_name":"read_file","state":"closed"}'
 */
export const learning = createApp()
  .openapi(learningRoute, async (c) =>
    c.json(await readLearningView(c.env.PRICING, c.get("tenant") ?? OPEN_TENANT), 200),
  )
  .openapi(adminLearningRoute, async (c) =>
    c.json(await readLearningView(c.env.PRICING, c.req.valid("query").tenant), 200),
  )
  .openapi(refreshRoute, async (c) =>
    c.json(await refreshLearning(c.env, c.req.valid("query").tenant, Date.now(), c.get("admin")), 200),
  )
  .openapi(breakerRoute, async (c) => {
    const { tenant } = c.req.valid("param");
    const { tool_name: tool, state } = c.req.valid("json");
    const [value, overrides] = await Promise.all([
      readPublished(c.env.PRICING, tenant),
      readOverrides(c.env.PRICING, tenant),
    ]);
    if (
      own(value?.tools, tool) === undefined &&
      own(value?.breakers, tool) === undefined &&
      own(overrides, tool) === undefined
    ) {
      throw new ApiError(
        "not_found",
        `tenant ${tenant}'s ledger has never seen tool ${tool} (as of its last refresh)`,
        [{ path: "tool_name", message: "is not a tool of this tenant" }],
      );
    }
    const written = await putBreakerMode(c.env.PRICING, tenant, tool, state, c.get("admin"));
    return c.json({ ...written, refresh: await refreshLearning(c.env, tenant, Date.now(), c.get("admin")) }, 200);
  })
  .openapi(ackRoute, async (c) => {
    const { tenant } = c.req.valid("param");
    const { tool_name: tool, acknowledged } = c.req.valid("json");
    await requireKnownTenant(c.env, tenant, learningAcksKey(tenant));
    const value = await readPublished(c.env.PRICING, tenant);
    // Withdrawing is always allowed (a tool may have left the window); acknowledging needs a tool the ledger saw.
    if (acknowledged && own(value?.tools, tool) === undefined && own(value?.trust, tool) === undefined) {
      throw new ApiError(
        "not_found",
        `tenant ${tenant}'s ledger has never seen tool ${tool} (as of its last refresh)`,
        [{ path: "tool_name", message: "is not a tool of this tenant" }],
      );
    }
    const written = await putAck(c.env.PRICING, tenant, tool, acknowledged, c.get("admin"));
    return c.json({ ...written, refresh: await refreshLearning(c.env, tenant, Date.now(), c.get("admin")) }, 200);
  })
  .openapi(importRoute, async (c) => {
    const { tenant } = c.req.valid("query");
    await requireKnownTenant(c.env, tenant, replayPriorsKey(tenant));
    const written = await putReplayPriors(c.env.PRICING, tenant, c.req.valid("json"), c.get("admin"));
    return c.json({ ...written, refresh: await refreshLearning(c.env, tenant, Date.now(), c.get("admin")) }, 200);
  })
  .route(
    "/",
    tenantAudit({
      path: "/v1/admin/learning/import/{tenant}",
      subject: replayPriorsKey,
      rollback: rollbackReplayPriors,
      restored: ReplayPriorsViewSchema,
      what: "imported replay priors",
      restoredWhat: "imported replay priors",
    }),
  )
  .route(
    "/",
    tenantAudit({
      path: "/v1/admin/learning/acks/{tenant}",
      subject: learningAcksKey,
      rollback: rollbackAcks,
      restored: AcksViewSchema,
      what: "acknowledgements of flagged reporting",
      restoredWhat: "acknowledgements",
    }),
  )
  .route(
    "/",
    tenantAudit({
      path: "/v1/admin/learning/breakers/{tenant}",
      subject: breakersKey,
      rollback: rollbackOverrides,
      restored: BreakerOverridesSchema,
      what: "breaker overrides",
      restoredWhat: "breaker overrides",
      bodyErrors: BAD_BODY,
    }),
  );

export type { LearningViewSchema } from "./schema";
