import { z } from "@hono/zod-openapi";
import { CACHE_TTLS, MAX_PLAN_CANDIDATES, MAX_PLAN_SEGMENTS, PLAN_REASON_CODES, RECALL_PLACEMENTS } from "../../gate";
import { MAX_HORIZON, MAX_TOKENS } from "../../storage/rules";
import { ModelNameSchema } from "../../storage/schemas";
import {
  AnswerLifecycleSchema,
  PricedAsSchema,
  SessionIdSchema,
  StalePricingSchema,
  ToolNameSchema,
} from "../gate/schemas";
import { DryRunSchema, probability, requiredOr, wholeNumber } from "../kernel/openapi";

// The plan's limits are the core's (src/gate/plan.ts), so replay's plan sends what a request may.
export { MAX_PLAN_CANDIDATES, MAX_PLAN_SEGMENTS };
/** Longest candidate id: a harness's tool-call id. */
export const MAX_SEGMENT_ID_LENGTH = 128;

/** Worked example P1 of docs/design/plan.md §4: the request the documentation shows. */
export const WORKED_EXAMPLE_P1 = {
  model_name: "claude-opus-4-6",
  horizon: 4,
  cache_hit_rate: 0.9,
  segments: [
    { tokens: 8_000 },
    { id: "c1", tokens: 42_000, recall_probability: 0.2 },
    { tokens: 1_500 },
    { id: "c2", tokens: 15_000, recall_probability: 0.25 },
    { tokens: 3_000 },
    { id: "c3", tokens: 30_000, recall_probability: 0.1 },
    { tokens: 2_000 },
  ],
};

/** A segment's fields, for the schemas built on a plan's (POST /v1/context-management adds tool_name). */
export const segmentShape = {
  tokens: wholeNumber(MAX_TOKENS)
    .unwrap()
    .openapi({ description: "Tokens of this piece of the history.", example: 42_000 }),
  id: z
    .string({ error: requiredOr("must be a string") })
    .min(1, "must not be empty")
    .max(MAX_SEGMENT_ID_LENGTH, `must be at most ${MAX_SEGMENT_ID_LENGTH} characters`)
    .optional()
    .openapi({
      description: "Makes the segment a candidate: the tool output's id (e.g. its tool_use id). Unique.",
      example: "c1",
    }),
  recall_probability: probability().openapi({
    description: "This candidate's p_recall. Default: the request's recall_probability.",
    example: 0.2,
  }),
  stub_tokens: wholeNumber(MAX_TOKENS).openapi({
    description: "This candidate's stub size. Default: the request's stub_tokens.",
    example: 200,
  }),
};

/** Refuses per-candidate fields on fixed context rather than ignoring them. */
export function checkSegment(
  segment: { id?: string; [field: string]: unknown },
  ctx: z.RefinementCtx,
  fields: readonly string[] = ["recall_probability", "stub_tokens"],
): void {
  if (segment.id !== undefined) return;
  for (const field of fields) {
    if (segment[field] !== undefined)
      ctx.addIssue({ code: "custom", path: [field], message: "only applies to a candidate (a segment with an id)" });
  }
}

/**
 * One piece of the history. With an `id` it is a candidate: a tool output
 * that may be replaced by a stub; without one it is fixed context, and the
 * per-candidate fields are refused rather than ignored.
 */
const SegmentSchema = z
  .strictObject(segmentShape)
  .superRefine((segment, ctx) => checkSegment(segment, ctx))
  .openapi("PlanSegment");

const CacheTtlSchema = z
  .enum(CACHE_TTLS, { error: requiredOr(`must be ${CACHE_TTLS.map((ttl) => `"${ttl}"`).join(" or ")}`) })
  .openapi({
    description:
      'Which cache write a cached token pays: "5m" (default) or "1h" (cache_write_1h, falling back to the 5-minute write).',
  });

const RecallPlacementSchema = z
  .enum(RECALL_PLACEMENTS, {
    error: requiredOr(`must be ${RECALL_PLACEMENTS.map((placement) => `"${placement}"`).join(" or ")}`),
  })
  .openapi({
    description:
      'Where a recall puts the original back: "append" (default; a new tool result at the end, as the project\'s clients do: ' +
      'the hop reads the history from the cache) or "in_place" (where the stub stood: the history after the stub is written).',
  });

/** The body's fields, for the schemas built on a plan's. */
export const planRequestShape = {
  model_name: ModelNameSchema,
  segments: z
    .array(SegmentSchema, { error: requiredOr("must be an array of segments") })
    .min(1, "must hold at least one segment")
    .max(MAX_PLAN_SEGMENTS, `must hold at most ${MAX_PLAN_SEGMENTS} segments`)
    .openapi({
      description: `The history in order, up to ${MAX_PLAN_SEGMENTS} segments and ${MAX_PLAN_CANDIDATES} candidates.`,
    }),
  horizon: wholeNumber(MAX_HORIZON).openapi({
    description: "Remaining turns. Default: the expected_conversation_depth prior.",
    example: 4,
  }),
  recall_probability: probability().openapi({
    description: "p_recall of candidates that give none. Default: the p_recall prior.",
    example: 0.25,
  }),
  cache_hit_rate: probability().openapi({ description: "q. Default: the cache_hit_rate prior, 0.9.", example: 0.9 }),
  cache_ttl: CacheTtlSchema.optional(),
  recall_placement: RecallPlacementSchema.optional(),
  large_offload_threshold_tokens: wholeNumber(MAX_TOKENS).openapi({
    description:
      "An optional floor: candidates below it are never stubbed. Default: config:gate's, else none (the plan's own economics decide).",
    example: 10_000,
  }),
  stub_tokens: wholeNumber(MAX_TOKENS).openapi({ example: 200 }),
  recall_input_tokens: wholeNumber(MAX_TOKENS).openapi({ example: 2_000 }),
  recall_output_tokens: wholeNumber(MAX_TOKENS).openapi({ example: 500 }),
  session_id: SessionIdSchema.optional(),
  tool_name: ToolNameSchema.optional(),
  dry_run: DryRunSchema,
};

/** The checks across segments: unique ids, at most MAX_PLAN_CANDIDATES candidates, the history's bound. */
export function checkPlanSegments(
  body: { segments: readonly { id?: string; tokens: number }[] },
  ctx: z.RefinementCtx,
): void {
  const seen = new Map<string, number>();
  let candidates = 0;
  let total = 0;
  body.segments.forEach((segment, index) => {
    total += segment.tokens;
    if (segment.id === undefined) return;
    candidates++;
    const first = seen.get(segment.id);
    if (first !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["segments", index, "id"],
        message: `repeats segments.${first}.id; ids must be unique`,
      });
    } else seen.set(segment.id, index);
    if (candidates === MAX_PLAN_CANDIDATES + 1) {
      ctx.addIssue({
        code: "custom",
        path: ["segments", index, "id"],
        message: `is candidate ${candidates}; at most ${MAX_PLAN_CANDIDATES} are allowed`,
      });
    }
  });
  // The history is the gate's context_tokens for every candidate: the same bound.
  if (total > MAX_TOKENS)
    ctx.addIssue({ code: "custom", path: ["segments"], message: `hold ${total} tokens; at most ${MAX_TOKENS} in all` });
}

/**
 * The body of POST /v1/plan: the history in order, and the gate's priors.
 * Every plan is priced cache-aware (docs/design/plan.md §6), whatever the
 * config's pricing_mode.
 */
export const PlanRequestSchema = z
  .strictObject(planRequestShape)
  .superRefine(checkPlanSegments)
  .openapi("PlanRequest", { example: WORKED_EXAMPLE_P1 });

export type PlanRequest = z.infer<typeof PlanRequestSchema>;

/** The answer to WORKED_EXAMPLE_P1, as the documentation shows it (a route test checks it is the real one). */
export const WORKED_EXAMPLE_P1_ANSWER = {
  stub: ["c1", "c2", "c3"],
  net_saving_usd: 0.2773018749999999,
  keep_cost_usd: 0.43644999999999995,
  plan_cost_usd: 0.159148125,
  rewrite_from_tokens: 8_000,
  rewritten_tokens: 7_100,
  candidates: [
    { id: "c1", stubbed: true, alone_net_saving_usd: -0.10560000000000008 },
    { id: "c2", stubbed: true, alone_net_saving_usd: -0.148016875 },
    { id: "c3", stubbed: true, alone_net_saving_usd: 0.10656874999999998 },
  ],
  reason:
    "stub 3 of 3 candidates: net=$0.2773 (keep=$0.4364 − plan=$0.1591); cached prefix 8000 of 101500 tokens, " +
    "7100 written again; H=4 q=0.90 ttl=5m tier=none model=claude-opus-4-6",
  reason_code: "plan_positive",
  exact: true,
  priced_as: {
    model: "claude-opus-4-6",
    input: 5,
    output: 25,
    cache_read: 0.5,
    cache_write: 6.25,
    cache_write_1h: 10,
    resolved_from: "exact",
    price_effective_at: null,
  },
  stale_pricing: null,
  lifecycle: null,
  inputs: {
    model_name: "claude-opus-4-6",
    horizon: 4,
    recall_probability: 0.25,
    cache_hit_rate: 0.9,
    cache_ttl: "5m",
    recall_placement: "append",
    large_offload_threshold_tokens: 0,
    stub_tokens: 200,
    recall_input_tokens: 2_000,
    recall_output_tokens: 500,
    history_tokens: 101_500,
  },
};

/** The priors as the plan used them, every default filled in. */
export const PlanInputsSchema = z
  .object({
    model_name: z.string(),
    horizon: z.number().int(),
    recall_probability: z.number(),
    cache_hit_rate: z.number(),
    cache_ttl: CacheTtlSchema,
    recall_placement: RecallPlacementSchema,
    large_offload_threshold_tokens: z.number().int(),
    stub_tokens: z.number().int(),
    recall_input_tokens: z.number().int(),
    recall_output_tokens: z.number().int(),
    history_tokens: z.number().int().openapi({ description: "N: tokens of the whole history." }),
  })
  .openapi("PlanInputs");

export type ResolvedPlanInputs = z.infer<typeof PlanInputsSchema>;

/** The 200 answer of POST /v1/plan. */
export const PlanSchema = z
  .object({
    stub: z
      .array(z.string())
      .openapi({ description: "Ids to replace by stubs on the next turn, in history order; empty: keep everything." }),
    net_saving_usd: z
      .number()
      .openapi({ description: "keep_cost − plan_cost of the plan; 0 when nothing is stubbed." }),
    keep_cost_usd: z
      .number()
      .openapi({ description: "What keeping the history costs over the horizon; 0 when not priced." }),
    plan_cost_usd: z.number().openapi({
      description: "What the plan costs: the prefix read, the rest rewritten and carried, the recall hops.",
    }),
    rewrite_from_tokens: z
      .number()
      .int()
      .openapi({ description: "The prefix that stays cached: tokens before the earliest stub." }),
    rewritten_tokens: z
      .number()
      .int()
      .openapi({ description: "Tokens written again on the next turn: the stubs and all after the earliest." }),
    candidates: z
      .array(
        z.object({
          id: z.string(),
          stubbed: z.boolean(),
          alone_net_saving_usd: z.number().nullable().openapi({
            description:
              "The retroactive gate's net for stubbing this candidate alone; null below the pre-filter or when not priced.",
          }),
        }),
      )
      .openapi({ description: "Every candidate, in history order." }),
    reason: z.string(),
    reason_code: z.enum(PLAN_REASON_CODES).openapi("PlanReasonCode"),
    exact: z.boolean().openapi({
      description:
        "false when the search's node budget (one per plan, shared by all its searches) ended it before it was done: the plan is the best found, still never worse than stubbing nothing; true otherwise.",
    }),
    priced_as: PricedAsSchema,
    stale_pricing: StalePricingSchema,
    lifecycle: AnswerLifecycleSchema,
    inputs: PlanInputsSchema,
    decision_id: z.string().optional().openapi({
      description:
        "This plan's id in the outcomes ledger, for POST /v1/outcomes: `dec_<shard>_<32 hex>`. Absent in a dry run.",
      example: "dec_1_4a5f0c2d9e8b7a6f5e4d3c2b1a0f9e8d",
    }),
    dry_run: z.literal(true).optional().openapi({ description: "Only in a dry run: nothing was recorded." }),
    would_stub: z.array(z.string()).optional().openapi({
      description: 'Only with reason_code "holdout": what the plan would have stubbed outside the holdout.',
    }),
    would_net_saving_usd: z.number().optional().openapi({
      description:
        'Only with reason_code "holdout": the net the plan would have saved (net_saving_usd is 0: nothing was stubbed).',
    }),
  })
  .openapi("Plan", { example: { ...WORKED_EXAMPLE_P1_ANSWER, decision_id: "dec_1_4a5f0c2d9e8b7a6f5e4d3c2b1a0f9e8d" } });

export type PlanBody = z.infer<typeof PlanSchema>;
