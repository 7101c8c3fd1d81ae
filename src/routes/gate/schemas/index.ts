/**
 * The front door of src/routes/gate/schemas/: what the rest of the code may import from it.
 */
export { GateBatchResponseSchema } from "./batch-answer-schema";
export type { GateBatchItemError } from "./batch-schema";
export { GateBatchRequestSchema, MAX_BATCH_ITEMS } from "./batch-schema";
export type { GateDecisionBody, ResolvedInputs } from "./decision-schema";
export {
  AnswerLifecycleSchema,
  GateDecisionSchema,
  PricedAsSchema,
  PricingModeSchema,
  ReasonCodeSchema,
  ResolvedInputsSchema,
  StalePricingSchema,
} from "./decision-schema";
export type { GateRequest } from "./schema";
export { GateRequestSchema, SessionIdSchema, ToolNameSchema } from "./schema";
