import { z } from "@hono/zod-openapi";
import { ErrorSchema } from "../../kernel/openapi";
import { GateDecisionSchema } from "./decision-schema";

// POST /v1/gate/batch's answer, for the OpenAPI document and the types (see ./decision-schema.ts).

/** A batch entry for an item that could not be decided: the one error shape, for that item. */
export const GateBatchItemErrorSchema = z
  .object({ error: ErrorSchema.shape.error.extend({ code: z.literal("invalid_request") }) })
  .openapi("GateBatchItemError");

export type GateBatchItemError = z.infer<typeof GateBatchItemErrorSchema>;

/** The 200 answer of POST /v1/gate/batch: one entry per item, in request order. */
export const GateBatchResponseSchema = z
  .object({ decisions: z.array(z.union([GateDecisionSchema, GateBatchItemErrorSchema])) })
  .openapi("GateBatchResponse");
