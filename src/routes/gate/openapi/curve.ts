import { createRoute, z } from "@hono/zod-openapi";
import { GATE_SECURITY } from "../../../auth";
import { CURVE_EXTRA_POINTS, DEFAULT_CURVE_POINTS, gateCurves, MAX_CURVE_POINTS } from "../../../gate";
import { MAX_HORIZON, MAX_TOKENS } from "../../../storage/rules";
import { decideContext, pricedAsOf } from "../../kernel";
import { bodyErrors, CALLER_ERRORS, createApp, json, jsonRequest, requiredOr } from "../../kernel/openapi";
import { coreInputs, orThrow, prepareItems } from "../direct";
import { GateRequestSchema } from "../schemas";
import { GateCurveSchema } from "./curve-schema";

const count = (min: number, max: number) =>
  z
    .number({ error: requiredOr("must be a number") })
    .int(`must be an integer between ${min} and ${max}`)
    .min(min, `must be an integer between ${min} and ${max}`)
    .max(max, `must be an integer between ${min} and ${max}`)
    .optional();

/** The body of POST /v1/gate/curve: a gate request, and how much of each curve to draw. */
export const GateCurveRequestSchema = z
  .strictObject({
    request: GateRequestSchema,
    points: count(2, MAX_CURVE_POINTS).openapi({
      description: `Evenly spaced points per curve, from 0 to its end (default ${DEFAULT_CURVE_POINTS}). Each curve adds up to ${CURVE_EXTRA_POINTS} more: the request's own value, its break-even and both sides of the pre-filter edge.`,
      example: DEFAULT_CURVE_POINTS,
    }),
    horizon_max: count(1, MAX_HORIZON).openapi({
      description:
        "Where the horizon curve ends. Default: far enough to show the request's horizon and its break-even (at least 8).",
      example: 12,
    }),
    output_tokens_max: count(1, MAX_TOKENS).openapi({
      description:
        "Where the output-size curve ends. Default: far enough to show the request's size, the pre-filter and the break-even.",
      example: 60_000,
    }),
  })
  .openapi("GateCurveRequest", {
    example: {
      request: {
        model_name: "claude-opus-4-6",
        output_tokens: 20_000,
        horizon: 4,
        recall_probability: 0.3,
        pricing_mode: "cache_aware",
        context_tokens: 60_000,
      },
      points: DEFAULT_CURVE_POINTS,
    },
  });

/** POST /v1/gate/curve, for the app and its OpenAPI document. */
export const gateCurveRoute = createRoute({
  method: "post",
  path: "/v1/gate/curve",
  summary: "The gate's answer along the horizon and the output size, without recording it",
  description:
    "Every point is what POST /v1/gate would answer there, computed by the same core with the same pricing lookup, in either " +
    "pricing mode. Nothing is written to Analytics Engine: these are what-ifs, not decisions an agent acted on. The console draws its charts from it.",
  tags: ["gate"],
  security: GATE_SECURITY,
  request: jsonRequest(GateCurveRequestSchema),
  responses: {
    200: json(GateCurveSchema, "The decision at the request's inputs, and both curves"),
    ...bodyErrors("The body is not JSON or a field is wrong; the error names the field (request.horizon, points, …)"),
    ...CALLER_ERRORS,
  },
});

/**
 * POST /v1/gate/curve: validate → load pricing → the core's answer at every
 * point → respond. It reads the row even below the pre-filter, since the
 * output-size curve reaches above it, and records nothing.
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/gate/curve -H 'content-type: application/json' \
 *   -d '{"request":{"model_name":"claude-opus-4-6","output_tokens":20000,"pricing_mode":"cache_aware"},"points":21}'
 */
export const curve = createApp().openapi(gateCurveRoute, async (c) => {
  const { request, points, horizon_max, output_tokens_max } = c.req.valid("json");
  const { items } = await prepareItems([{ body: request, path: ["request"] }], decideContext(c), true);
  const { mode, inputs, pricing } = orThrow(items);
  const span = { points: points ?? DEFAULT_CURVE_POINTS, horizonMax: horizon_max, outputTokensMax: output_tokens_max };
  const curves = gateCurves(mode, coreInputs(inputs), pricing.read.lookup, span);
  return c.json(
    { pricing_mode: mode, inputs, priced_as: pricedAsOf(pricing.read.lookup, pricing.effectiveAt ?? null), ...curves },
    200,
  );
});
