import { z } from "@hono/zod-openapi";
import { MAX_TOKENS } from "../../../storage/rules";

/**
 * Field builders the gate's request schemas share (schema.ts and
 * economics-fields.ts), so every count, probability and "is required" reads
 * the same.
 */

/**
 * A field's error: "is required" when it is missing, else `message`.
 *
 * @example
 * z.number({ error: requiredOr("must be a number") })
 */
export const requiredOr = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? "is required" : message;

/**
 * An optional whole number from 0 to `max`.
 *
 * @example
 * wholeNumber(1_000_000).openapi({ example: 4 })
 */
export const wholeNumber = (max: number) =>
  z
    .number({ error: requiredOr("must be a number") })
    .int("must be an integer ≥ 0")
    .nonnegative("must be an integer ≥ 0")
    .max(max, `must be at most ${max}`)
    .optional();

/**
 * An optional probability, in [0, 1].
 *
 * @example
 * probability().openapi({ example: 0.3 })
 */
export const probability = () =>
  z
    .number({ error: requiredOr("must be a number") })
    .min(0, "must be between 0 and 1")
    .max(1, "must be between 0 and 1")
    .optional();

/**
 * An optional token count, in [0, MAX_TOKENS].
 *
 * @example
 * tokenCount(200).openapi({ description: "S: the stub's size" })
 */
export const tokenCount = (example: number) => wholeNumber(MAX_TOKENS).openapi({ example });
