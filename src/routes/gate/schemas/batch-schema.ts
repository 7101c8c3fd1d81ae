import { z } from "@hono/zod-openapi";
import { DryRunSchema, requiredOr } from "../../kernel/openapi";

// POST /v1/gate/batch's request; its answer is ../answer/batch-answer-schema.ts, for the document only.
export type { GateBatchItemError } from "./batch-answer-schema";

/** Most items one POST /v1/gate/batch decides. */
export const MAX_BATCH_ITEMS = 100;

/**
 * The body of POST /v1/gate/batch. Items are checked one by one, so one bad
 * item gets its own error entry instead of sinking the batch.
 */
export const GateBatchRequestSchema = z
  .strictObject({
    items: z
      .array(
        // Validated one by one (a bad item must not sink the batch), so the
        // schema here only points the document at GateRequest.
        z.unknown().openapi({
          description: "A GateRequest; each item is validated on its own.",
          allOf: [{ $ref: "#/components/schemas/GateRequest" }],
        } as Record<string, unknown>),
        { error: requiredOr("must be an array of gate requests") },
      )
      .max(MAX_BATCH_ITEMS, `must hold at most ${MAX_BATCH_ITEMS} items`)
      .openapi({ description: `Up to ${MAX_BATCH_ITEMS} gate requests, each as POST /v1/gate takes it.` }),
    dry_run: DryRunSchema.openapi({ description: "true: every item is a dry run (an item's own dry_run counts too)." }),
  })
  .openapi("GateBatchRequest", {
    example: {
      items: [
        { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 },
        {
          model_name: "claude-opus-4-6",
          output_tokens: 12_000,
          horizon: 2,
          pricing_mode: "cache_aware",
          context_tokens: 150_000,
        },
      ],
    },
  });
