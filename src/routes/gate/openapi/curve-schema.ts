/**
 * The answer of POST /v1/gate/curve, apart from its route so that the
 * console's browser scripts can share its type (routes/console/browser/api.ts)
 * without the route's app and bindings.
 *
 * @example
 * GateCurveSchema.parse(await res.json()).horizon[0] // { x: 0, fire: false, net_saving_usd: …, reason_code: … }
 */
import { z } from "@hono/zod-openapi";
import { GateDecisionSchema, PricingModeSchema, ReasonCodeSchema, ResolvedInputsSchema } from "../schemas";

/** One point of a curve: what the gate answers at x. */
export const CurvePointSchema = z
  .object({
    x: z.number().openapi({ description: "The horizon or the output size this point is at." }),
    fire: z.boolean(),
    net_saving_usd: z.number(),
    reason_code: ReasonCodeSchema,
  })
  .openapi("CurvePoint", {
    description: "What POST /v1/gate answers at x, everything else as in the request.",
    example: { x: 4, fire: true, net_saving_usd: 0.160755, reason_code: "net_positive" },
  });

/** The 200 answer of POST /v1/gate/curve. */
export const GateCurveSchema = z
  .object({
    pricing_mode: PricingModeSchema,
    inputs: ResolvedInputsSchema,
    priced_as: GateDecisionSchema.shape.priced_as.openapi({
      description:
        "The row that priced the curves (even when the request itself is below the pre-filter); null when none did.",
    }),
    break_even_horizon: GateDecisionSchema.shape.break_even_horizon,
    break_even_output_tokens: GateDecisionSchema.shape.break_even_output_tokens,
    horizon: z
      .array(CurvePointSchema)
      .openapi({ description: "Against the horizon, at the request's output size; ascending x." }),
    output_tokens: z
      .array(CurvePointSchema)
      .openapi({ description: "Against the output size, at the request's horizon; ascending x." }),
  })
  .openapi("GateCurve", {
    description: "The mode, inputs and break-evens are POST /v1/gate's for the same request; nothing is recorded.",
  });
