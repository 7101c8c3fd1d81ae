import { z } from "@hono/zod-openapi";
import { SIZE_BANDS } from "../../gate";
import { TOOL_NAME_PATTERN } from "../../storage/rules";
import { BreakerStateSchema, HistoryEntrySchema, ToolTrustSchema } from "../../storage/schemas";
import { BREAKER_MODES } from "../../storage/write";
import { requiredOr } from "../kernel/openapi";

/** A tenant name, as gate keys name tenants. */
export const TenantSchema = z
  .string({ error: requiredOr("must be a string") })
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be a tenant name: 1 to 64 of A-Z a-z 0-9 . _ -")
  .openapi({ description: "The tenant: a gate key's name, or default.", example: "agents-prod" });

/** `?tenant=` of the admin learning routes. */
export const TenantQuerySchema = z.strictObject({ tenant: TenantSchema }).openapi("TenantQuery");

/** `{tenant}` of the breaker override routes. */
export const TenantParamSchema = z.object({ tenant: TenantSchema.openapi({ param: { name: "tenant", in: "path" } }) });

const Range = z.tuple([z.number(), z.number()]).nullable();
const FieldView = z.object({
  value: z.number(),
  source: z.enum(["config", "replay", "learned", "unverified"]).openapi({
    description:
      "unverified (recall_probability only): the tool's reporting is flagged and not acknowledged, so the value is its parent's",
  }),
  n: z.number(),
  range: Range,
});
const Fields = z.object({ horizon: FieldView, recall_probability: FieldView, cache_hit_rate: FieldView });
const Counts = z.object({ horizon: z.number(), recall_probability: z.number(), cache_hit_rate: z.number() });
const Level = { n: Counts.openapi({ description: "This level's own observations per field" }), priors: Fields };

/** GET /v1/learning and GET /v1/admin/learning (docs/learning.md). */
export const LearningViewSchema = z
  .object({
    tenant: z.string(),
    enabled: z.boolean(),
    computed_at: z
      .string()
      .nullable()
      .openapi({ description: "When the value the gate uses was computed; null: never (config priors)" }),
    window: z.object({ from: z.string(), to: z.string() }).nullable(),
    prior_weight: z.number(),
    credible: z.number().nullable(),
    range_level: z.number().openapi({ description: "The level of the ranges shown: learning_credible, else 0.9" }),
    config: Counts.openapi({ description: "The config's values: the root every level pools toward" }),
    tenant_level: z.object(Level),
    tools: z.array(
      z.object({
        tool_name: z.string(),
        ...Level,
        replay: Counts.nullable().openapi({
          description: "The imported replay level's observations per field; null: nothing imported for this tool",
        }),
        breaker: BreakerStateSchema.nullable(),
        trust: ToolTrustSchema.nullable().openapi({
          description:
            "The reporting flags this tool raised at the last refresh, and whether ops acknowledged them; null: none raised",
        }),
        models: z.array(
          z.object({
            model: z.string(),
            ...Level,
            bands: z.array(z.object({ band: z.enum(SIZE_BANDS), recall_probability: FieldView })).openapi({
              description:
                "The p the gate decides on for this tool, this model and each size band: every level of the chain pooled",
            }),
          }),
        ),
        bands: z.array(z.object({ band: z.enum(SIZE_BANDS), n: z.number(), recall_probability: FieldView })).openapi({
          description:
            "p per output size band (lt2k < 2,000 ≤ 2k-10k < 10,000 ≤ ge10k tokens): the tenant's own fired outcomes in the band, and the value a decision of that size pools (its parent's when n is 0)",
        }),
      }),
    ),
    breaker_rule_sees: z
      .string()
      .openapi({ description: "What the breaker's rule can and cannot see with the holdout in force" }),
    problem: z.string().nullable().openapi({ description: "Why the published value is not used (corrupt), or null" }),
    breaker_log: z
      .array(HistoryEntrySchema)
      .openapi({ description: "The latest changes of breaker state, newest first, with their evidence" }),
    families: z
      .array(
        z.object({
          agent: z.string().openapi({ description: "The family id a gate request's `agent` names" }),
          files: z.number().int(),
          repos: z.array(z.string()).openapi({ description: "The public repositories its transcripts come from" }),
          sessions: z
            .object({ main: z.number().int(), subagent: z.number().int() })
            .openapi({ description: "Sessions by kind: the samples of the session-aware horizon" }),
          tools: z.number().int().openapi({ description: "Tools whose recalls its p is measured on" }),
          source: z.string().openapi({ description: "How the calibration was made" }),
        }),
      )
      .openapi({
        description:
          "The shipped calibration per agent family that a cache-aware request naming its `agent` starts from (docs/design/economics.md §13, docs/design/learning.md §8.1), with each sample's source and size",
      }),
  })
  .openapi("LearningView");

/** POST /v1/admin/learning/refresh's body: nothing to say, as the admin API's other actions. */
export const RefreshBodySchema = z.strictObject({}).openapi("RefreshRequest");

/** What POST /v1/admin/learning/refresh answers. */
export const RefreshReportSchema = z
  .object({
    tenant: z.string(),
    status: z.enum(["published", "disabled", "partial", "config_unavailable"]),
    detail: z.string().nullable(),
    computed_at: z.number().nullable(),
    tools: z.number().int(),
    breaker_changes: z.array(
      z.object({
        tool_name: z.string(),
        from: z.string(),
        to: z.string(),
        mode: z.string(),
        rule: z.string(),
        evidence: z.unknown(),
      }),
    ),
    shards: z.object({ queried: z.number().int(), unavailable: z.number().int() }),
  })
  .openapi("LearningRefresh");

/** The body of PUT /v1/admin/learning/breakers/{tenant}. */
export const BreakerWriteSchema = z
  .strictObject({
    tool_name: z
      .string({ error: requiredOr("must be a string") })
      .regex(TOOL_NAME_PATTERN, "must be 1 to 64 of A-Z a-z 0-9 . _ : / -"),
    state: z.enum(BREAKER_MODES, { error: requiredOr('must be "open", "closed" or "auto"') }),
  })
  .openapi("BreakerWrite", { example: { tool_name: "read_file", state: "closed" } });

/** A tenant's breaker overrides after a write or a rollback. */
export const BreakerOverridesSchema = z
  .object({
    tenant: z.string(),
    overrides: z
      .record(z.string(), z.enum(["open", "closed"]))
      .openapi({ description: "The forced tools; a tool left out follows the rule" }),
    version: z.number().int(),
    changed: z.boolean(),
  })
  .openapi("BreakerOverrides");

/** PUT's answer: the overrides, and the refresh that applied them at once. */
export const BreakerWrittenSchema = BreakerOverridesSchema.extend({ refresh: RefreshReportSchema }).openapi(
  "BreakerWritten",
);

/** The body of PUT /v1/admin/learning/acks/{tenant}. */
export const AckWriteSchema = z
  .strictObject({
    tool_name: z
      .string({ error: requiredOr("must be a string") })
      .regex(TOOL_NAME_PATTERN, "must be 1 to 64 of A-Z a-z 0-9 . _ : / -"),
    acknowledged: z.boolean({ error: requiredOr("must be true or false") }),
  })
  .openapi("AckWrite", { example: { tool_name: "read_file", acknowledged: true } });

/** A tenant's acknowledged reporting flags after a write or a rollback. */
export const AcksViewSchema = z
  .object({
    tenant: z.string(),
    acks: z
      .record(z.string(), z.literal(true))
      .openapi({ description: "The tools whose flagged reporting ops acknowledged: their p is learned again" }),
    version: z.number().int(),
    changed: z.boolean(),
  })
  .openapi("LearningAcks");

/** PUT's answer: the acknowledgements, and the refresh that applied them at once. */
export const AckWrittenSchema = AcksViewSchema.extend({ refresh: RefreshReportSchema }).openapi("LearningAckWritten");

/** A tenant's imported replay priors after an import or a rollback: how many tools, and the key's version. */
export const ReplayPriorsViewSchema = z
  .object({ tenant: z.string(), tools: z.number().int(), version: z.number().int(), changed: z.boolean() })
  .openapi("ReplayPriorsView");

/** The import's answer: the stored priors' summary, and the refresh that applied them at once. */
export const ReplayImportedSchema = ReplayPriorsViewSchema.extend({ refresh: RefreshReportSchema }).openapi(
  "ReplayImported",
);
