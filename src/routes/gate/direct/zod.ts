/**
 * The gate request's zod schema, loaded when a body needs it: the compiled
 * validator (./compiled.ts) passes every well-formed request, so zod is
 * built only for a body it refuses, which zod then words the answer for.
 * Loaded once per isolate; a failed load is retried by the next body.
 *
 * @module
 */
import type { GateRequestSchema } from "../schemas";

let held: Promise<typeof GateRequestSchema> | undefined;

/**
 * GateRequestSchema, built on first use.
 *
 * @example
 * const parsed = (await gateRequestSchema()).safeParse(body);
 */
export function gateRequestSchema(): Promise<typeof GateRequestSchema> {
  held ??= import("../schemas/schema").then(
    (module) => module.GateRequestSchema,
    (error: unknown) => {
      held = undefined;
      throw error;
    },
  );
  return held;
}
