import { z } from "@hono/zod-openapi";
import { CLEARING_REASON_CODES } from "../../gate";
import { MAX_TOKENS } from "../../storage/rules";
import { AnswerLifecycleSchema, PricedAsSchema, StalePricingSchema, ToolNameSchema } from "../gate/schemas";
import { requiredOr, wholeNumber } from "../kernel/openapi";
import {
  checkPlanSegments,
  checkSegment,
  MAX_PLAN_CANDIDATES,
  MAX_PLAN_SEGMENTS,
  PlanInputsSchema,
  planRequestShape,
  segmentShape,
  WORKED_EXAMPLE_P1,
} from "./schema";

/**
 * POST /v1/context-management's body and answer: a plan's body whose
 * segments may name their tool, and the `clear_tool_uses_20250919` edit that
 * costs least, beside the plan's own optimum.
 */

const ClearingSegmentSchema = z
  .strictObject({
    ...segmentShape,
    tool_name: ToolNameSchema.optional().openapi({
      description: "The tool that produced this result, for exclude_tools.",
    }),
  })
  .superRefine((segment, ctx) => checkSegment(segment, ctx, ["recall_probability", "stub_tokens", "tool_name"]))
  .openapi("ClearingSegment");

/** Worked example P1 with its tools named: what docs/api/plan.md shows. */
export const WORKED_EXAMPLE_CLEARING = {
  ...WORKED_EXAMPLE_P1,
  segments: WORKED_EXAMPLE_P1.segments.map((segment, i) =>
    segment.id === undefined ? segment : { ...segment, tool_name: i === 3 ? "grep" : "web_fetch" },
  ),
};

/** The body of POST /v1/context-management: what POST /v1/plan takes, tool names on the segments, the placeholder's size. */
export const ContextManagementRequestSchema = z
  .strictObject({
    ...planRequestShape,
    segments: z
      .array(ClearingSegmentSchema, { error: requiredOr("must be an array of segments") })
      .min(1, "must hold at least one segment")
      .max(MAX_PLAN_SEGMENTS, `must hold at most ${MAX_PLAN_SEGMENTS} segments`)
      .openapi({
        description: `The history in order, up to ${MAX_PLAN_SEGMENTS} segments and ${MAX_PLAN_CANDIDATES} tool results (segments with an id).`,
      }),
    placeholder_tokens: wholeNumber(MAX_TOKENS).openapi({
      description: "Tokens of the API's placeholder for a cleared result. Default 10.",
      example: 10,
    }),
  })
  .superRefine(checkPlanSegments)
  .openapi("ContextManagementRequest", { example: WORKED_EXAMPLE_CLEARING });

export type ContextManagementRequest = z.infer<typeof ContextManagementRequestSchema>;

const count = (type: string) => z.object({ type: z.literal(type), value: z.number().int() });

/** The `context_management.edits` entry, as the Messages API takes it. */
export const ClearToolUsesEditSchema = z
  .object({
    type: z.literal("clear_tool_uses_20250919"),
    trigger: count("input_tokens").openapi({
      description: "Just under this history: the rule fires on the next request and every later one.",
    }),
    keep: count("tool_uses").openapi({ description: "The most recent tool uses left in full." }),
    clear_at_least: count("input_tokens").openapi({
      description: "What the priced clearing frees: the API then never clears less than was priced.",
    }),
    exclude_tools: z.array(z.string()).openapi({ description: "Tools whose results are never cleared." }),
  })
  .openapi("ClearToolUsesEdit");

/** The 200 answer of POST /v1/context-management. */
export const ContextManagementSchema = z
  .object({
    context_management: z
      .object({ edits: z.array(ClearToolUsesEditSchema) })
      .nullable()
      .openapi({
        description:
          "The request's `context_management` to send (providerOptions.anthropic.contextManagement in the AI SDK); null: send none.",
      }),
    edit: ClearToolUsesEditSchema.nullable().openapi({
      description:
        "The best rule found, recommended or not; null when the history has no tool result or was not priced.",
    }),
    cleared: z
      .array(z.string())
      .openapi({ description: "The ids `edit` clears on the next request, in history order." }),
    cleared_tokens: z.number().int(),
    net_usd: z.number().openapi({
      description: "What `edit` saves over the horizon against not clearing (may be negative); 0 when not priced.",
    }),
    keep_cost_usd: z.number(),
    clear_cost_usd: z.number().openapi({
      description:
        "What the history costs with `edit` applied: the prefix read, the rest written again and carried, the recalls.",
    }),
    considered: z.number().int().openapi({ description: "How many (keep, exclude_tools) rules were priced." }),
    plan: z
      .object({ stub: z.array(z.string()), net_saving_usd: z.number(), reason_code: z.string() })
      .openapi({ description: "POST /v1/plan's answer to the same history: the client-side optimum." }),
    left_on_table_usd: z.number().openapi({
      description:
        "plan.net_saving_usd − the net of what is recommended (0 when nothing is): what the server-side rule cannot reach.",
    }),
    reason: z.string(),
    reason_code: z.enum(CLEARING_REASON_CODES).openapi("ClearingReasonCode"),
    priced_as: PricedAsSchema,
    stale_pricing: StalePricingSchema,
    lifecycle: AnswerLifecycleSchema,
    inputs: PlanInputsSchema.extend({ placeholder_tokens: z.number().int() }),
    decision_id: z.string().optional().openapi({
      description:
        "This clearing decision's id in the outcomes ledger: report the response's applied_edits on it (POST /v1/outcomes, cleared_tool_uses and cleared_input_tokens). Absent in a dry run.",
      example: "dec_1_4a5f0c2d9e8b7a6f5e4d3c2b1a0f9e8d",
    }),
    dry_run: z.literal(true).optional().openapi({ description: "Only in a dry run: nothing was recorded." }),
  })
  .openapi("ContextManagement");

export type ContextManagementBody = z.infer<typeof ContextManagementSchema>;
