import { createRoute } from "@hono/zod-openapi";
import { GATE_SECURITY } from "../../../auth";
import { decideContext } from "../../kernel";
import { bodyErrors, CALLER_ERRORS, createApp, json, jsonRequest } from "../../kernel/openapi";
import { answerBatch, decideRequest } from "../direct";
import {
  GateBatchRequestSchema,
  GateBatchResponseSchema,
  GateDecisionSchema,
  GateRequestSchema,
  MAX_BATCH_ITEMS,
} from "../schemas";
import { curve } from "./curve";

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
    200: json(
      GateBatchResponseSchema,
      "One entry per item, in order: its decision, or an error naming what is wrong with it",
    ),
    ...bodyErrors(`The body is not JSON, is not {"items": [...]}, or holds more than ${MAX_BATCH_ITEMS} items`),
    ...CALLER_ERRORS,
  },
});

/**
 * POST /v1/gate and POST /v1/gate/batch: validate → load pricing → decide →
 * record → respond, one pipeline for both (../request/decide.ts); and POST
 * /v1/gate/curve, which shares all of it but the recording (./curve.ts).
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/gate -H 'content-type: application/json' \
 *   -d '{"model_name":"claude-opus-4-6","output_tokens":20000,"horizon":4,"recall_probability":0.3}'
 * curl -s 127.0.0.1:8787/v1/gate/batch -H 'content-type: application/json' \
 *   -d '{"items":[{"model_name":"claude-opus-4-6","output_tokens":20000},{"model_name":"gpt-5","output_tokens":-1}]}'
 */
export const gate = createApp()
  .openapi(gateRoute, async (c) => {
    const decision = await decideRequest(c.req.valid("json"), decideContext(c));
    return c.json(decision, 200);
  })
  .openapi(gateBatchRoute, async (c) => c.json(await answerBatch(c.req.valid("json"), decideContext(c)), 200))
  .route("/", curve);
