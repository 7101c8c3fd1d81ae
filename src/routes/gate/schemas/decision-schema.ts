import { z } from "@hono/zod-openapi";
import {
  BREAK_EVEN_MAX_HORIZON,
  CACHE_TTLS,
  DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
  OFFLOAD_AT,
  PRICING_MODES,
  REASON_CODES,
  RECALL_PLACEMENTS,
  RESOLVED_FROM,
} from "../../../gate";
import { AnswerPriorsSchema } from "./priors-schema";
import { WORKED_EXAMPLE_A } from "./schema";

// The answers of the gate's routes, for the OpenAPI document and the types:
// no route parses an answer, so none of this is built where only requests
// are checked (src/routes/gate/direct/direct.ts and the deployed entry's startup).

// 10000 → "10,000", as the descriptions write numbers.
const grouped = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** The inputs as the gate used them, every default filled in. */
export const ResolvedInputsSchema = z
  .object({
    model_name: z.string(),
    output_tokens: z.number(),
    output_chars: z.number().int().optional(),
    chars_per_token: z.number().optional().openapi({
      description:
        "cache_aware only, when output_chars was sent: the characters per token output_tokens was converted with (the row's chars_per_token, else 4). Seed mode always divides by 4, as the reference does.",
    }),
    horizon: z.number().int(),
    recall_probability: z.number(),
    large_offload_threshold_tokens: z.number().int(),
    stub_tokens: z.number().int(),
    recall_input_tokens: z.number().int(),
    recall_output_tokens: z.number().int(),
    cache_hit_rate: z.number().optional().openapi({ description: "cache_aware only" }),
    context_tokens: z.number().int().optional().openapi({ description: "cache_aware only" }),
    offload_at: z.enum(OFFLOAD_AT).optional().openapi({ description: "cache_aware only" }),
    suffix_tokens: z.number().int().optional().openapi({ description: "cache_aware only; 0 on entry" }),
    cache_ttl: z.enum(CACHE_TTLS).optional().openapi({ description: "cache_aware only" }),
    recall_placement: z.enum(RECALL_PLACEMENTS).optional().openapi({ description: "cache_aware only" }),
    horizon_range: z
      .tuple([z.number().int(), z.number().int()])
      .optional()
      .openapi({ description: "Echoed when given" }),
    recall_probability_range: z
      .tuple([z.number(), z.number()])
      .optional()
      .openapi({ description: "Echoed when given" }),
    cache_hit_rate_range: z
      .tuple([z.number(), z.number()])
      .optional()
      .openapi({ description: "Echoed when given (cache_aware only)" }),
  })
  .openapi("ResolvedInputs");

export type ResolvedInputs = z.infer<typeof ResolvedInputsSchema>;

export const ReasonCodeSchema = z.enum(REASON_CODES).openapi("ReasonCode");

export const PricingModeSchema = z.enum(PRICING_MODES).openapi("PricingMode");

/** A model's lifecycle as the answer reports it (see src/gate/lifecycle.ts). */
export const LifecycleSchema = z
  .object({
    model: z.string().openapi({ description: "The requested model's canonical name" }),
    status: z.enum(["active", "deprecated", "retired"]),
    deprecated_at: z.string().nullable(),
    retires_at: z.string().nullable(),
    replaced_by: z.string().nullable(),
    priced_as_replacement: z.boolean().openapi({
      description: "True when a retired model was priced at its replacement's row, as the provider bills it",
    }),
    chain: z.array(z.string()).openapi({ description: "The models passed through, the requested one first" }),
  })
  .openapi("Lifecycle");

/** The lowest-net corner of the prior ranges (docs/design/economics.md §6). */
export const WorstCaseSchema = z
  .object({
    net_saving_usd: z.number(),
    horizon: z.number().int(),
    recall_probability: z.number(),
    cache_hit_rate: z.number().nullable().openapi({ description: "null in seed mode, which has no q" }),
  })
  .openapi("WorstCase");

/** An answer's `lifecycle` (a decision's or a plan's). */
export const AnswerLifecycleSchema = LifecycleSchema.nullable().openapi({
  description:
    "Set when the requested model's row has lifecycle dates: whether it is deprecated or retired, and whether a replacement priced it.",
});

/** The canonical row that priced an answer (a decision or a plan), with its model name. */
export const PricedAsSchema = z
  .object({
    model: z.string(),
    resolved_from: z.enum(RESOLVED_FROM).openapi({
      description:
        "How the model name as sent found this row: `exact`, `alias`, `routing_prefix` (a provider prefix as LiteLLM or OpenRouter write it removed, e.g. `openrouter/anthropic/`), `dated_suffix` (a snapshot date such as `-20250514`, `@20250514`, `-2025-05-14`, `-latest` or Bedrock's `-v1:0` removed), or `routing_prefix_and_dated_suffix`. A retired model priced at its replacement keeps how the name as sent was found.",
    }),
    price_effective_at: z.string().nullable().openapi({
      description:
        "The instant of the row's scheduled price change in force when the request arrived; null: the row's own prices.",
    }),
  })
  .catchall(z.unknown())
  .nullable()
  .openapi({
    description:
      "The canonical pricing row that priced the answer, with its model name, at the prices in force when the request arrived (its scheduled changes up to then applied; the list itself left out); null when none did.",
  });

/** Set when KV could not be read and a row (or the config) past its TTL priced the answer. */
export const StalePricingSchema = z
  .object({ age_seconds: z.number(), detail: z.string() })
  .nullable()
  .openapi({ description: "Set when KV could not be read and a row past its TTL priced the answer." });

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
    pricing_mode: PricingModeSchema,
    context_premium_saving_usd: z.number().openapi({
      description: "The long-context premium that stubbing avoids (cache_aware); 0 in seed mode and when not priced.",
    }),
    suffix_rewrite_cost_usd: z.number().openapi({
      description:
        'What stubbing an output already in the cached history costs by rewriting the cached tokens after it (offload_at "retroactive"); 0 on entry, in seed mode and when not priced. Negative when stubbing drops the request out of a long-context tier.',
    }),
    break_even_horizon: z
      .number()
      .int()
      .nullable()
      .openapi({
        description: `The smallest horizon at which the gate would fire, everything else fixed; null when not priced or none up to ${grouped(BREAK_EVEN_MAX_HORIZON)}.`,
      }),
    break_even_output_tokens: z.number().int().nullable().openapi({
      description:
        "The smallest output size (never below the pre-filter) at which the gate would fire at this horizon; null when not priced or none.",
    }),
    worst_case: WorstCaseSchema.nullable().openapi({
      description:
        "The corner of the box of prior ranges with the lowest net; null when no range was given or the decision was not priced.",
    }),
    priced_as: PricedAsSchema,
    stale_pricing: StalePricingSchema,
    lifecycle: AnswerLifecycleSchema,
    inputs: ResolvedInputsSchema,
    decision_id: z.string().optional().openapi({
      description:
        "This decision's id, for POST /v1/outcomes: `dec_<shard>_<32 hex>`, the shard of the ledger that keeps it. Absent in a dry run.",
      example: "dec_2_9f86d081884c7d659a2feaa0c55ad015",
    }),
    dry_run: z.literal(true).optional().openapi({ description: "Only in a dry run: nothing was recorded." }),
    would_fire: z.boolean().optional().openapi({
      description:
        'Only with reason_code "holdout" or "breaker_open": the verdict the gate would have given otherwise.',
    }),
    suggestions: z
      .array(z.string())
      .optional()
      .openapi({
        description:
          "Only when no row prices the model at all: up to 3 known model names closest to it, closest first (empty when none is close, or the names could not be read in time). The reason is unchanged.",
        example: ["claude-opus-4-6"],
      }),
    priors: AnswerPriorsSchema,
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
      pricing_mode: "seed",
      context_premium_saving_usd: 0,
      suffix_rewrite_cost_usd: 0,
      break_even_horizon: 1,
      break_even_output_tokens: DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS,
      worst_case: null,
      priced_as: { model: "claude-opus-4-6", input: 5, output: 25, resolved_from: "exact", price_effective_at: null },
      stale_pricing: null,
      lifecycle: null,
      inputs: WORKED_EXAMPLE_A,
      decision_id: "dec_2_9f86d081884c7d659a2feaa0c55ad015",
      priors: {
        horizon: { value: 4, source: "request", n: 0 },
        recall_probability: { value: 0.3, source: "request", n: 0 },
        cache_hit_rate: { value: 0.9, source: "config", n: 0 },
      },
    },
  });

export type GateDecisionBody = z.infer<typeof GateDecisionSchema>;
