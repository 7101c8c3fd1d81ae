import { createRoute } from "@hono/zod-openapi";
import { GATE_SECURITY, OPEN_TENANT } from "../../auth/gate";
import { enforceRateLimit } from "../../auth/rate-limit";
import { fieldIssues } from "../../gate/issues";
import { waitUntilOf } from "../../http/app";
import { bodyErrors, ErrorSchema, json, jsonRequest } from "../../http/schema";
import { createApp } from "../app";
import { decideItems, decideRequest, type DecideContext, type GateItem } from "./decide";
import {
  GateBatchRequestSchema,
  GateBatchResponseSchema,
  GateDecisionSchema,
  GateRequestSchema,
  MAX_BATCH_ITEMS,
} from "./schema";

/** The answers of every route a gate key guards, before its handler runs. */
export const CALLER_ERRORS = {
  401: json(ErrorSchema, "GATE_API_KEYS is set and the bearer key is missing or wrong"),
  429: json(ErrorSchema, "The caller's tenant is past its rate limit; Retry-After says when to retry"),
};

/** POST /v1/gate, for the app and its OpenAPI document. */
export const gateRoute = createRoute({
  method: "post",
  path: "/v1/gate",
  summary: "Decide whether offloading one tool output saves money",
  tags: ["gate"],
  security: GATE_SECURITY,
  request: jsonRequest(GateRequestSchema),
  responses: {
    200: json(GateDecisionSchema, "The decision, its priced terms and its reason"),
    ...bodyErrors("The body is not JSON or a field is wrong; the error names the field"),
    ...CALLER_ERRORS,
  },
});

/** POST /v1/gate/batch: the envelope is validated here, each item on its own in the handler. */
export const gateBatchRoute = createRoute({
  method: "post",
  path: "/v1/gate/batch",
  summary: `Decide up to ${MAX_BATCH_ITEMS} tool outputs in one call`,
  tags: ["gate"],
  security: GATE_SECURITY,
  request: jsonRequest(GateBatchRequestSchema),
  responses: {
    200: json(GateBatchResponseSchema, "One entry per item, in order: its decision, or an error naming what is wrong with it"),
    ...bodyErrors(`The body is not JSON, is not {"items": [...]}, or holds more than ${MAX_BATCH_ITEMS} items`),
    ...CALLER_ERRORS,
  },
});

const contextOf = (c: Parameters<typeof waitUntilOf>[0] & { env: Env; get(key: "tenant"): string | undefined }): DecideContext => ({
  env: c.env,
  tenant: c.get("tenant") ?? OPEN_TENANT,
  waitUntil: waitUntilOf(c),
  // The clock is read here, at the edge, once per request; lifecycle dates compare as YYYY-MM-DD strings.
  today: new Date().toISOString().slice(0, 10),
});

/**
 * POST /v1/gate and POST /v1/gate/batch: validate → load pricing → decide →
 * record → respond, one pipeline for both (./decide.ts).
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/gate -H 'content-type: application/json' \
 *   -d '{"model_name":"claude-opus-4-6","output_tokens":20000,"horizon":4,"recall_probability":0.3}'
 * curl -s 127.0.0.1:8787/v1/gate/batch -H 'content-type: application/json' \
 *   -d '{"items":[{"model_name":"claude-opus-4-6","output_tokens":20000},{"model_name":"gpt-5","output_tokens":-1}]}'
 */
export const gate = createApp()
  .openapi(gateRoute, async (c) => {
    const decision = await decideRequest(c.req.valid("json"), contextOf(c));
    return c.json(decision, 200);
  })
  .openapi(gateBatchRoute, async (c) => {
    const { items } = c.req.valid("json");
    const work = items.map((item, index): GateItem => {
      const parsed = GateRequestSchema.safeParse(item);
      return parsed.success
        ? { body: parsed.data, path: ["items", index] }
        : { issues: fieldIssues(parsed.error, ["items", index]) };
    });
    // The request counted once already; each further distinct model is a
    // lookup that may reach KV, and counts too (docs/operations.md § Rate limits).
    const models = new Set(work.flatMap((item) => ("body" in item ? [item.body.model_name] : [])));
    const context = contextOf(c);
    await enforceRateLimit(c.env.GATE_RATE_LIMITER, context.tenant, models.size - 1);
    return c.json({ decisions: await decideItems(work, context) }, 200);
  });
