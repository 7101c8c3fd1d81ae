import { z } from "@hono/zod-openapi";
import { MAX_HORIZON, MAX_TOKENS } from "../../pricing/config";
import { ModelNameSchema } from "../../pricing/schema";

const requiredOr = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? "is required" : message;

const tokenCount = (example: number) =>
  z
    .number({ error: requiredOr("must be a number") })
    .int("must be an integer ≥ 0")
    .nonnegative("must be an integer ≥ 0")
    .max(MAX_TOKENS, `must be at most ${MAX_TOKENS}`)
    .optional()
    .openapi({ example });

/**
 * The body of POST /v1/gate: the reference's `OffloadGateInputs` field for
 * field, so a Python caller can post `dataclasses.asdict(inputs)` as it is.
 * Unknown fields are refused: a typo must never fall back to a prior.
 */
export const GateRequestSchema = z
  .strictObject({
    model_name: ModelNameSchema,
    output_tokens: z
      .number({ error: requiredOr("must be a number") })
      .nonnegative("must not be negative")
      .max(MAX_TOKENS, `must be at most ${MAX_TOKENS}`)
      .optional()
      .openapi({ description: "Size of the candidate tool output in tokens. Give this or output_chars.", example: 20_000 }),
    output_chars: z
      .number({ error: requiredOr("must be a number") })
      .int("must be an integer ≥ 0")
      .nonnegative("must be an integer ≥ 0")
      .max(MAX_TOKENS * 4, `must be at most ${MAX_TOKENS * 4}`)
      .optional()
      .openapi({ description: "Size in characters; stands in for output_tokens as chars / 4.", example: 80_000 }),
    horizon: z
      .number({ error: requiredOr("must be a number") })
      .int("must be an integer ≥ 0")
      .nonnegative("must be an integer ≥ 0")
      .max(MAX_HORIZON, `must be at most ${MAX_HORIZON}`)
      .optional()
      .openapi({ description: "Remaining turns the output would be carried. Default: the expected_conversation_depth prior.", example: 4 }),
    recall_probability: z
      .number({ error: requiredOr("must be a number") })
      .min(0, "must be between 0 and 1")
      .max(1, "must be between 0 and 1")
      .optional()
      .openapi({ description: "p_recall. Default: the p_recall prior.", example: 0.3 }),
    large_offload_threshold_tokens: tokenCount(10_000),
    stub_tokens: tokenCount(200),
    recall_input_tokens: tokenCount(2_000),
    recall_output_tokens: tokenCount(500),
  })
  .superRefine((body, ctx) => {
    if (body.output_tokens === undefined && body.output_chars === undefined) {
      ctx.addIssue({ code: "custom", path: ["output_tokens"], message: "is required (or give output_chars)" });
    }
    if (body.output_tokens !== undefined && body.output_chars !== undefined) {
      ctx.addIssue({ code: "custom", path: ["output_chars"], message: "cannot be given with output_tokens" });
    }
  })
  .openapi("GateRequest", {
    example: {
      model_name: "claude-opus-4-6",
      output_tokens: 20_000,
      horizon: 4,
      recall_probability: 0.3,
      large_offload_threshold_tokens: 10_000,
      stub_tokens: 200,
      recall_input_tokens: 2_000,
      recall_output_tokens: 500,
    },
  });

export type GateRequest = z.infer<typeof GateRequestSchema>;

/** The inputs as the gate used them, every default filled in. */
export const ResolvedInputsSchema = z
  .object({
    model_name: z.string(),
    output_tokens: z.number(),
    output_chars: z.number().int().optional(),
    horizon: z.number().int(),
    recall_probability: z.number(),
    large_offload_threshold_tokens: z.number().int(),
    stub_tokens: z.number().int(),
    recall_input_tokens: z.number().int(),
    recall_output_tokens: z.number().int(),
  })
  .openapi("ResolvedInputs");

export type ResolvedInputs = z.infer<typeof ResolvedInputsSchema>;

export const ReasonCodeSchema = z
  .enum(["below_threshold", "unpriced", "pricing_unavailable", "net_positive", "net_not_positive"])
  .openapi("ReasonCode");

/** The 200 answer of POST /v1/gate. */
export const GateDecisionSchema = z
  .object({
    fire: z.boolean(),
    net_saving_usd: z.number(),
    reprefill_saving_usd: z.number(),
    stub_carry_cost_usd: z.number(),
    expected_recall_hop_cost_usd: z.number(),
    reason: z.string(),
    reason_code: ReasonCodeSchema,
    priced_as: z
      .object({ model: z.string() })
      .catchall(z.unknown())
      .nullable()
      .openapi({ description: "The canonical pricing row that priced the decision, with its model name; null when none did." }),
    stale_pricing: z
      .object({ age_seconds: z.number(), detail: z.string() })
      .nullable()
      .openapi({ description: "Set when KV could not be read and a row past its TTL priced the decision." }),
    inputs: ResolvedInputsSchema,
  })
  .openapi("GateDecision", {
    example: {
      fire: true,
      net_saving_usd: 0.38925000000000004,
      reprefill_saving_usd: 0.4,
      stub_carry_cost_usd: 0.004,
      expected_recall_hop_cost_usd: 0.00675,
      reason: "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
      reason_code: "net_positive",
      priced_as: { model: "claude-opus-4-6", input: 5, output: 25 },
      stale_pricing: null,
      inputs: {
        model_name: "claude-opus-4-6",
        output_tokens: 20_000,
        horizon: 4,
        recall_probability: 0.3,
        large_offload_threshold_tokens: 10_000,
        stub_tokens: 200,
        recall_input_tokens: 2_000,
        recall_output_tokens: 500,
      },
    },
  });

export type GateDecisionBody = z.infer<typeof GateDecisionSchema>;
