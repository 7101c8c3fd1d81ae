/**
 * The gate requests' zod schemas, loaded when a body needs one: the compiled
 * validators (./compiled.ts) pass every well-formed request, so zod is built
 * only for a body they refuse, which zod then words the answer for. Loaded
 * once per isolate; a failed load is retried by the next body.
 *
 * @module
 */
import { lazily } from "../../../storage";

/**
 * GateRequestSchema, built on first use.
 *
 * @example
 * const parsed = (await gateRequestSchema()).safeParse(body);
 */
export const gateRequestSchema = lazily(() => import("../schemas/schema").then((module) => module.GateRequestSchema));

/**
 * GateBatchRequestSchema, built on first use.
 *
 * @example
 * const parsed = (await gateBatchRequestSchema()).safeParse(body);
 */
export const gateBatchRequestSchema = lazily(() =>
  import("../schemas/batch-schema").then((module) => module.GateBatchRequestSchema),
);
