import { z } from "@hono/zod-openapi";
import { DECISION_ID_PATTERN } from "../../ledger";
import { MAX_HORIZON, MAX_TOKENS } from "../../storage/rules";
import { ModelNameSchema } from "../../storage/schemas";
import { SessionIdSchema, ToolNameSchema } from "../gate/schemas";
import { requiredOr } from "../kernel/openapi";
import { MAX_SEGMENT_ID_LENGTH as MAX_ID_LENGTH, MAX_PLAN_CANDIDATES as MAX_RECALLED_IDS } from "../plan";
import { ProviderUsageSchema } from "./usage";

/** Most items one POST /v1/outcomes or POST /v1/sessions takes. */
export const MAX_REPORT_ITEMS = 100;

/** The largest session covariate taken: a token count far past any session's (10¹⁵), and finite. */
export const MAX_COVARIATE = 1e15;

const count = (max: number, description: string) =>
  z
    .number({ error: requiredOr("must be a number") })
    .int("must be an integer ≥ 0")
    .nonnegative("must be an integer ≥ 0")
    .max(max, `must be at most ${max}`)
    .openapi({ description });

/** One outcome an agent reports after a decision. */
export const OutcomeItemSchema = z
  .strictObject({
    decision_id: z
      .string({ error: requiredOr("must be a string") })
      .regex(
        DECISION_ID_PATTERN,
        "must be a decision_id the gate answered (dec_<shard>_<32 hex>, signed: _<8 hex>_<16 hex> after it)",
      )
      .openapi({ example: "dec_2_9f86d081884c7d659a2feaa0c55ad015" }),
    turns_after: count(MAX_HORIZON, "How many more turns the session ran after the decision: the realized horizon."),
    recalled: z
      .boolean({ error: requiredOr("must be true or false") })
      .openapi({ description: "Whether the stub was recalled (false for a decision that did not fire)." }),
    recalled_high: z.boolean({ error: "must be true or false" }).optional().openapi({
      description:
        "The high end of the recall evidence: true when anything after the output might have been a recall (a re-read of the same file, a re-run of the same command, a quote that may come from elsewhere); `recalled` is the low end, the charged recall. Left out, it equals `recalled`. Must be true when `recalled` is, and false for a decision that did not fire.",
    }),
    cached_turns: count(
      MAX_HORIZON,
      "How many of those turns read the history's prefix from the cache (cache_read_input_tokens > 0).",
    ).optional(),
    context_tokens: count(
      MAX_TOKENS,
      "The history before the output at decision time, for decisions that did not carry it.",
    ).optional(),
    recalled_ids: z
      .array(
        z
          .string({ error: "must be a string" })
          .min(1, "must not be empty")
          .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`),
        { error: "must be an array of ids" },
      )
      .max(MAX_RECALLED_IDS, `must name at most ${MAX_RECALLED_IDS} ids`)
      .optional()
      .openapi({
        description:
          "For a clearing plan: which of its stubbed ids were recalled (recalled is true exactly when there are any).",
      }),
    cleared_tool_uses: count(
      MAX_TOKENS,
      "For a POST /v1/context-management decision only (required there): the applied_edits' cleared_tool_uses (0 for none).",
    ).optional(),
    cleared_input_tokens: count(
      MAX_TOKENS,
      "For a POST /v1/context-management decision only (required there): the applied_edits' cleared_input_tokens (0 for none).",
    ).optional(),
  })
  .superRefine((item, ctx) => {
    if (item.cached_turns !== undefined && item.cached_turns > item.turns_after) {
      ctx.addIssue({ code: "custom", path: ["cached_turns"], message: "must be at most turns_after" });
    }
    if (item.recalled && item.recalled_high === false) {
      ctx.addIssue({
        code: "custom",
        path: ["recalled_high"],
        message: "must be true when recalled is: the high end counts every recall the low end does",
      });
    }
  })
  .openapi("OutcomeReport", {
    example: {
      decision_id: "dec_2_9f86d081884c7d659a2feaa0c55ad015",
      turns_after: 5,
      recalled: false,
      cached_turns: 4,
    },
  });

/** A finished session's whole bill, as the provider's usage blocks sum it. */
export const SessionItemSchema = z
  .strictObject({
    session_id: SessionIdSchema,
    model_name: ModelNameSchema,
    turns: count(MAX_HORIZON, "How many turns the session ran."),
    usage: ProviderUsageSchema,
    covariate: z
      .number({ error: requiredOr("must be a number") })
      .nonnegative("must be a finite number ≥ 0")
      .max(MAX_COVARIATE, `must be at most ${MAX_COVARIATE}`)
      .optional()
      .openapi({
        description:
          "Optional. A size of the session that the gate's decisions cannot change, which the breaker regresses the bill on to take noise out of its verdict (CUPED, docs/learning.md). Send the same quantity for every session of a tenant. Recommended: the context tokens at the session's first gate decision × the later turns that missed the cache for idleness (cache_read_input_tokens 0).",
        example: 1_200_000,
      }),
    cache_misses: z
      .strictObject(
        {
          after_gate_rewrite: count(
            MAX_TOKENS,
            "Input tokens that missed the cache on calls right after the gate rewrote the cached history (a plan's stubs, a clearing): misses the gate caused.",
          ),
          other: count(
            MAX_TOKENS,
            "Input tokens that missed the cache on any other call: misses the gate did not cause.",
          ),
        },
        { error: requiredOr("must be an object with after_gate_rewrite and other") },
      )
      .optional()
      .openapi({
        description:
          "Optional. The session's cache misses as the provider diagnosed them (Anthropic's cache diagnostics, `cache_missed_input_tokens`), split by whether the miss followed one of the gate's own rewrites of the history. Part of the report's content, like `covariate`.",
        example: { after_gate_rewrite: 42_000, other: 8_000 },
      }),
  })
  .openapi("SessionReport", {
    example: {
      session_id: "conv-2026-11-30-0042",
      model_name: "claude-opus-4-6",
      turns: 12,
      usage: {
        input_tokens: 4_200,
        output_tokens: 9_800,
        cache_read_input_tokens: 1_650_000,
        cache_creation_input_tokens: 210_000,
      },
    },
  });

/** The body of both report routes: items validated one by one, so one bad item does not sink the rest. */
export const reportRequestSchema = (name: string, ref: string) =>
  z
    .strictObject({
      items: z
        .array(
          z.unknown().openapi({
            description: `A ${ref}; each item is validated on its own.`,
            allOf: [{ $ref: `#/components/schemas/${ref}` }],
          } as Record<string, unknown>),
          { error: requiredOr(`must be an array of ${ref} items`) },
        )
        .max(MAX_REPORT_ITEMS, `must hold at most ${MAX_REPORT_ITEMS} items`),
    })
    .openapi(name);

/** What became of one item: accepted (again, when repeated), unknown_decision, conflict or invalid. */
export const ItemResultSchema = z
  .object({
    status: z.enum(["accepted", "unknown_decision", "conflict", "invalid"]),
    repeated: z
      .boolean()
      .optional()
      .openapi({ description: "On accepted: this exact report was already stored (a safe retry)." }),
    pending: z.boolean().optional().openapi({
      description:
        "On an accepted outcome: true when its decision has not reached the ledger yet (it is still in the queue). The outcome waits and is applied when the decision arrives; one that does not fit its decision is dropped then.",
    }),
    message: z.string().optional(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi("ReportItemResult");

/** The 200 answer of both report routes: one result per item, in order, and the tally. */
export const ReportResponseSchema = z
  .object({
    results: z.array(ItemResultSchema),
    accepted: z.number().int(),
    unknown_decision: z.number().int(),
    conflict: z.number().int(),
    invalid: z.number().int(),
  })
  .openapi("ReportResponse");

/** The savings report's filters. */
export const SavingsQuerySchema = z
  .strictObject({
    from: z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time" }).optional().openapi({
      description:
        "Start of the window (decisions by their time, sessions by their report's). Default: the retention before `to`.",
      example: "2026-11-01T00:00:00Z",
    }),
    to: z.iso
      .datetime({ offset: true, error: "must be an ISO 8601 date-time" })
      .optional()
      .openapi({ description: "End of the window, exclusive. Default: now.", example: "2026-12-01T00:00:00Z" }),
    tool_name: ToolNameSchema.optional(),
    model: ModelNameSchema.optional().openapi({
      description: "The requested model name or the canonical one that priced it.",
    }),
  })
  .openapi("SavingsQuery");

/** GET /v1/admin/savings adds the tenant. */
export const AdminSavingsQuerySchema = SavingsQuerySchema.extend({
  tenant: z
    .string({ error: requiredOr("must be a string") })
    .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be a tenant name: 1 to 64 of A-Z a-z 0-9 . _ -")
    .openapi({ description: "The tenant: a gate key's name, or default.", example: "agents-prod" }),
});

const Interval = z
  .tuple([z.number(), z.number()])
  .nullable()
  .openapi({ description: "95% interval; null when too few values." });
const Maybe = z.number().nullable();
const VerdictSchema = z.enum(["saving", "losing", "inconclusive"]);
const Withheld = z.enum(["too_few_sessions", "zero_spread"]).nullable().openapi({
  description:
    "Why the verdict is inconclusive whatever the interval says: fewer than 30 sessions in an arm, or no spread.",
});

/** The 200 answer of the savings routes (docs/ledger.md explains each figure). */
export const SavingsReportSchema = z
  .object({
    tenant: z.string(),
    window: z.object({ from: z.string(), to: z.string() }),
    filters: z.object({ tool_name: z.string().nullable(), model: z.string().nullable() }),
    decisions: z.number().int(),
    fired: z.number().int(),
    holdout_decisions: z.number().int(),
    outcomes: z.number().int(),
    net: z.object({
      fired_with_outcome: z.number().int(),
      predicted_usd: z.number().openapi({ description: "Summed predicted net of fired decisions with an outcome." }),
      realized_usd: z
        .number()
        .openapi({ description: "Summed realized net of the same decisions: the cache-aware bill." }),
      mean_gap_usd: Maybe.openapi({ description: "Mean of realized − predicted per decision." }),
      mean_gap_ci95: Interval,
    }),
    recall: z.object({ n: z.number().int(), realized: Maybe, ci95: Interval, prior: Maybe }),
    recall_range: z
      .object({
        n: z.number().int().openapi({
          description: "The proxy's observed fired decisions with a priced outcome (tool_name `observed:<tool>`).",
        }),
        low: Maybe.openapi({
          description:
            "Charged recalls ÷ n: a later answer quoted what only the output held, with no re-read first (replay's `chargedRecall`).",
        }),
        high: Maybe.openapi({
          description:
            "Any detection ÷ n: re-reads, re-runs and quotes that might come from elsewhere included (replay's `recallAfter`). An outcome that sent no `recalled_high` counts at its `recalled`.",
        }),
      })
      .openapi({
        description:
          "The recall rate of the proxy's observed decisions as a range (docs/design/learning.md §8): observed, not enacted. Narrow it to one tool with `tool_name`.",
      }),
    horizon: z.object({ n: z.number().int(), realized_mean: Maybe, ci95: Interval, prior_mean: Maybe }),
    cache_hit_rate: z.object({ n: z.number().int(), realized_mean: Maybe, ci95: Interval, prior_mean: Maybe }),
    missed_savings: z.object({ decisions: z.number().int(), usd: z.number() }),
    cache_misses: z
      .object({
        sessions: z.number().int().openapi({ description: "Billed sessions that sent `cache_misses`." }),
        after_gate_rewrite: z.number().openapi({
          description:
            "Input tokens the provider diagnosed as cache misses on the call right after one of the gate's own rewrites of the history (a plan's stubs, a clearing).",
        }),
        other: z.number().openapi({ description: "Input tokens diagnosed as cache misses on every other call." }),
      })
      .openapi({
        description:
          "The providers' cache diagnostics the bills carried (POST /v1/sessions `cache_misses`), the misses after the gate's rewrites apart from the rest.",
      }),
    holdout: z.object({
      fraction: z.number().openapi({
        description: "holdout_fraction now: π = 1 − it is each (session, tool) pair's chance of being treated.",
      }),
      sessions: z.number().int().openapi({ description: "Sessions with a bill in the window." }),
      mean_cost_usd: Maybe,
      verdict: VerdictSchema.openapi({ description: "The tenant-wide verdict: `tenant`'s." }),
      tenant: z.object({
        tools: z.number().int(),
        alpha_per_tool: Maybe.openapi({
          description: "α ÷ K: the level each tool's bounds are taken at, so the sum holds for all K at once.",
        }),
        estimate_usd: Maybe.openapi({
          description:
            "Σ over tools of share × the tool's treatment − holdout per session: what the gate changes a session's bill by.",
        }),
        interval: Interval.openapi({
          description: "The same sum of each tool's confidence-sequence bounds at α ÷ K; valid at any time.",
        }),
        verdict: VerdictSchema,
        withheld: Withheld,
      }),
      tools: z.array(
        z.object({
          tool_name: z.string().openapi({ description: 'The tool; "" for decisions sent without one.' }),
          observed: z.boolean().openapi({
            description:
              "True for the proxy's observed decisions (tool_name `observed:<tool>`): what the gate would have done on live traffic, nothing stubbed; never an enacted saving.",
          }),
          recall_range: z.object({ n: z.number().int(), low: Maybe, high: Maybe }).nullable().openapi({
            description:
              "For an observed tool only (null otherwise): its recall rate as a range, as the report's `recall_range` gives it for the tenant, over this tool's fired decisions with a priced outcome.",
          }),
          sessions: z.number().int(),
          treated: z.number().int(),
          held_out: z.number().int(),
          share: Maybe.openapi({ description: "The tool's sessions ÷ every billed session." }),
          estimate_usd: Maybe.openapi({
            description: "Treatment − holdout mean cost per session, by this tool's arm (ψ̄).",
          }),
          interval: Interval.openapi({
            description: "The confidence sequence's 95% interval: it holds however often the report is read.",
          }),
          verdict: VerdictSchema.openapi({
            description:
              "From the confidence sequence only; inconclusive below 30 sessions per arm or with zero spread.",
          }),
          withheld: Withheld,
          information: z
            .object({
              treated_mean_cost_usd: Maybe,
              held_out_mean_cost_usd: Maybe,
              welch_difference_usd: Maybe,
              welch_ci95: Interval,
              welch_df: Maybe,
            })
            .openapi({
              description:
                "Information only, never a verdict: Welch's interval holds for one look at a fixed number of sessions.",
            }),
        }),
      ),
    }),
    bucket: z.enum(["minute", "hour", "day"]),
    series: z.array(
      z.object({
        start: z.string(),
        decisions: z.number().int(),
        fired: z.number().int(),
        fired_with_outcome: z.number().int(),
        predicted_net_usd: z.number(),
        realized_net_usd: z.number(),
      }),
    ),
    shards: z.object({
      queried: z.number().int().openapi({
        description:
          "Shards asked: those the tenant ever wrote (ledger-shard:<tenant>:<n> in KV), so 0 for a tenant that never wrote.",
      }),
      unavailable: z.number().int().openapi({
        description: "Shards that did not answer within ledger_timeout_ms: their data is missing from every figure.",
      }),
      partial: z
        .boolean()
        .openapi({ description: "True when a shard was unavailable: the report covers only part of the ledger." }),
    }),
  })
  .openapi("SavingsReport");
