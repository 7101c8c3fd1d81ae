import { createRoute } from "@hono/zod-openapi";
import { GATE_SECURITY } from "../../auth/gate";
import { createApp, waitUntilOf } from "../../http/app";
import { ErrorSchema } from "../../http/schema";
import { decideRequest } from "./decide";
import { GateDecisionSchema, GateRequestSchema } from "./schema";

const json = <T>(schema: T, description: string) => ({ content: { "application/json": { schema } }, description });

export const gateRoute = createRoute({
  method: "post",
  path: "/v1/gate",
  summary: "Decide whether offloading one tool output saves money",
  tags: ["gate"],
  security: GATE_SECURITY,
  request: { body: { content: { "application/json": { schema: GateRequestSchema } }, required: true } },
  responses: {
    200: json(GateDecisionSchema, "The decision, its priced terms and its reason"),
    400: json(ErrorSchema, "The body is not JSON or a field is wrong; the error names the field"),
    413: json(ErrorSchema, "The body is over 64 KiB"),
    415: json(ErrorSchema, "The body is not application/json"),
    401: json(ErrorSchema, "GATE_API_KEYS is set and the bearer key is missing or wrong"),
    429: json(ErrorSchema, "The caller's tenant is past its rate limit; Retry-After says when to retry"),
  },
});

/**
 * POST /v1/gate: validate → load pricing → decide → record → respond.
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/gate -H 'content-type: application/json' \
 *   -d '{"model_name":"claude-opus-4-6","output_tokens":20000,"horizon":4,"recall_probability":0.3}'
 */
export const gate = createApp().openapi(gateRoute, async (c) => {
  const body = c.req.valid("json");
  const decision = await decideRequest(body, {
    env: c.env,
    tenant: c.get("tenant") ?? "default",
    waitUntil: waitUntilOf(c),
  });
  return c.json(decision, 200);
});
