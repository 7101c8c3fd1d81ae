import { z } from "@hono/zod-openapi";
import {
  CHARS_PER_TOKEN,
  DEFAULT_CACHE_HIT_RATE,
  DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
  DEFAULT_RECALL_INPUT_TOKENS,
  DEFAULT_RECALL_OUTPUT_TOKENS,
  DEFAULT_STUB_TOKENS,
  PRICING_MODES,
} from "../../../gate";
import { MAX_HORIZON, MAX_TOKENS, SESSION_ID_PATTERN, TOOL_NAME_PATTERN } from "../../../storage/rules";
import { ModelNameSchema } from "../../../storage/schemas";
import { gateRequestIssues } from "../../kernel";
import { DryRunSchema, probability, requiredOr, tokenCount, wholeNumber } from "../../kernel/openapi";
import { ECONOMICS_FIELDS } from "./economics-fields";
import { SESSION_FIELDS } from "./session-fields";

/** The agent's conversation: decisions and bills of one session share its ledger shard and its holdout arm. */
export const SessionIdSchema = z
  .string({ error: requiredOr("must be a string") })
  .regex(SESSION_ID_PATTERN, "must be 1 to 128 of A-Z a-z 0-9 . _ : -")
  .openapi({
    description: "The agent's conversation, for the outcomes ledger and the holdout.",
    example: "conv-2026-11-30-0042",
  });

/** The tool whose output is decided, so the savings report can be filtered by it. */
export const ToolNameSchema = z
  .string({ error: requiredOr("must be a string") })
  .regex(TOOL_NAME_PATTERN, "must be 1 to 64 of A-Z a-z 0-9 . _ : / -")
  .openapi({ description: "The tool that produced the output, for the savings report.", example: "web.fetch" });

// A missing or non-object request (a batch item, the curve's `request`) says so in words.
const notAnObject = (issue: { code?: string; input?: unknown }) =>
  issue.code === "invalid_type" ? requiredOr("must be a JSON object")(issue) : undefined;

/** Worked example A, every field given: the request the documentation shows, and the inputs its answer echoes. */
export const WORKED_EXAMPLE_A = {
  model_name: "claude-opus-4-6",
  output_tokens: 20_000,
  horizon: 4,
  recall_probability: 0.3,
  large_offload_threshold_tokens: DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
  stub_tokens: DEFAULT_STUB_TOKENS,
  recall_input_tokens: DEFAULT_RECALL_INPUT_TOKENS,
  recall_output_tokens: DEFAULT_RECALL_OUTPUT_TOKENS,
};

/**
 * The body of POST /v1/gate: the reference's `OffloadGateInputs` field for
 * field, so a Python caller can post `dataclasses.asdict(inputs)` as it is.
 * Unknown fields are refused: a typo must never fall back to a prior.
 */
export const GateRequestSchema = z
  .strictObject(
    {
      model_name: ModelNameSchema,
      output_tokens: z
        .number({ error: requiredOr("must be a number") })
        .nonnegative("must not be negative")
        .max(MAX_TOKENS, `must be at most ${MAX_TOKENS}`)
        .optional()
        .openapi({
          description: "Size of the candidate tool output in tokens. Give this or output_chars.",
          example: 20_000,
        }),
      output_chars: wholeNumber(MAX_TOKENS * CHARS_PER_TOKEN).openapi({
        description: `Size in characters, an estimate: stands in for output_tokens as chars / ${CHARS_PER_TOKEN}, which undercounts real tokens by 7–40% on real transcripts. Send output_tokens measured from provider usage when you can.`,
        example: 80_000,
      }),
      horizon: wholeNumber(MAX_HORIZON).openapi({
        description: "Remaining turns the output would be carried. Default: the expected_conversation_depth prior.",
        example: 4,
      }),
      recall_probability: probability().openapi({
        description: "p_recall. Default: the p_recall prior.",
        example: 0.3,
      }),
      large_offload_threshold_tokens: tokenCount(DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS).openapi({
        description:
          "The size pre-filter: smaller outputs never fire and are not priced. Default: config:gate's, else 10,000 in seed mode and no floor in cache_aware mode, where the request's break-even size (break_even_output_tokens) decides and this is an optional floor.",
      }),
      stub_tokens: tokenCount(DEFAULT_STUB_TOKENS),
      recall_input_tokens: tokenCount(DEFAULT_RECALL_INPUT_TOKENS),
      recall_output_tokens: tokenCount(DEFAULT_RECALL_OUTPUT_TOKENS),
      pricing_mode: z
        .enum(PRICING_MODES, { error: requiredOr(`must be ${PRICING_MODES.map((mode) => `"${mode}"`).join(" or ")}`) })
        .optional()
        .openapi({
          description:
            'How a carried token is priced: "seed" is the reference gate (every carried token at the input price on every turn); ' +
            '"cache_aware" prices the prompt cache and long-context tiers (docs/economics.md). Default: the pricing_mode in config:gate, "seed".',
          example: "cache_aware",
        }),
      cache_hit_rate: probability().openapi({
        description: `q: how likely a later turn finds the prefix still cached. cache_aware only (refused in seed mode). Default: the cache_hit_rate prior, ${DEFAULT_CACHE_HIT_RATE}.`,
        example: 0.9,
      }),
      context_tokens: wholeNumber(MAX_TOKENS).openapi({
        description:
          "P: tokens of history before this output, re-read on the recall hop and deciding a long-context tier. cache_aware only (refused in seed mode). Default: 0.",
        example: 60_000,
      }),
      session_id: SessionIdSchema.optional(),
      tool_name: ToolNameSchema.optional(),
      dry_run: DryRunSchema,
      ...ECONOMICS_FIELDS,
      ...SESSION_FIELDS,
    },
    { error: notAnObject },
  )
  // Plain code JSON Schema cannot say; the compiled validator runs it too.
  .superRefine((body, ctx) => {
    for (const issue of gateRequestIssues(body)) ctx.addIssue({ code: "custom", ...issue });
  })
  .openapi("GateRequest", {
    example: WORKED_EXAMPLE_A,
  });

export type GateRequest = z.infer<typeof GateRequestSchema>;
