import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY } from "../../auth";
import { GateConfigSchema, HistoryEntrySchema, ModelNameSchema, PricingRowSchema } from "../../storage/schemas";
import { ErrorSchema, FieldIssueSchema, json } from "../kernel/openapi";

/** The error answers every admin route can give, besides its own. */
export const ADMIN_ERRORS = {
  401: {
    ...json(ErrorSchema, "No ADMIN_TOKEN is configured, or the bearer token is missing, wrong or a gate key"),
    headers: z.object({ "WWW-Authenticate": z.string().openapi({ example: 'Bearer realm="offload-gate-admin"' }) }),
  },
  429: {
    ...json(
      ErrorSchema,
      "Too many failed admin authentications from this client address; Retry-After says when to retry",
    ),
    headers: z.object({ "Retry-After": z.string().openapi({ example: "60" }) }),
  },
  503: json(ErrorSchema, "KV kept refusing the write (429) after retries; Retry-After says when to try again"),
} as const;

/**
 * An admin route: tagged "admin", behind the admin bearer token, with the
 * error answers every admin route can give.
 *
 * @example
 * const getRoute = adminRoute({ method: "get", path: "/v1/admin/config", summary: "Read the gate config", responses: { 200: json(ConfigViewSchema, "The config") } });
 */
export function adminRoute<const R extends Omit<RouteConfig, "tags" | "security">>(config: R) {
  return createRoute({
    tags: ["admin"],
    security: ADMIN_SECURITY,
    ...config,
    responses: { ...config.responses, ...ADMIN_ERRORS },
  });
}

/** The `{model}` path parameter: a model name as KV keys accept it. */
export const ModelParamSchema = z.object({
  model: ModelNameSchema.openapi({
    param: { name: "model", in: "path" },
    description: "A canonical model name; a '/' in it is sent as %2F.",
  }),
});

/** A warning or problem with one field. */
export const IssueSchema = FieldIssueSchema.openapi("Issue");

/** GET /v1/admin/pricing/{model}: the row as stored, valid or not. */
export const StoredRowSchema = z
  .object({
    model: z.string(),
    row: PricingRowSchema.nullable().openapi({ description: "The row; null when the stored value is invalid." }),
    problem: z.string().nullable().openapi({ description: "What is wrong with the stored value, or null." }),
    value: z
      .unknown()
      .openapi({ description: "The stored value as it is (JSON, or its text when it does not parse)." }),
    version: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .openapi({ description: "The last change in its history; 0 before any; null when the history is corrupt." }),
    history_problem: z.string().nullable().openapi({ description: "What is wrong with the row's history, or null." }),
  })
  .openapi("StoredPricingRow");

/** GET /v1/admin/pricing: every row and alias. */
export const PricingListSchema = z
  .object({
    count: z.number().int(),
    models: z
      .record(z.string(), PricingRowSchema)
      .openapi({ description: "Every valid row, in pricing.seed.json's shape." }),
    invalid: z.array(z.object({ model: z.string(), problem: z.string() })),
    aliases: z.record(z.string(), z.string()).openapi({ description: "Every alias key and the model it points to." }),
  })
  .openapi("PricingList");

/** PATCH /v1/admin/pricing/{model}'s body: a JSON merge patch (RFC 7386) of the row. */
export const MergePatchSchema = z
  .record(z.string(), z.unknown(), { error: "must be a JSON object: the fields to change, null to remove one" })
  .openapi("PricingMergePatch", {
    description:
      "The fields to change; a field set to null is removed, a long_context object merges into the stored tier. The merged row must be a valid row.",
    example: { input: 1.5, verified_at: "2026-11-30" },
  });

/** What a PUT, PATCH, DELETE or rollback of a row did. */
export const WriteOutcomeSchema = z
  .object({
    model: z.string(),
    row: PricingRowSchema.nullable(),
    changed: z.boolean().openapi({ description: "false when the row already held this value: nothing was written." }),
    version: z.number().int().nonnegative(),
    warnings: z
      .array(IssueSchema)
      .openapi({ description: "Accepted, but worth a second look (e.g. unusual Anthropic cache ratios)." }),
  })
  .openapi("PricingWrite");

/** A key's history: its versions, newest first. */
export const HistorySchema = z
  .object({
    subject: z.string().openapi({ example: "pricing:gpt-5" }),
    current_version: z.number().int().nonnegative(),
    earliest_restorable: z.number().int().nonnegative().nullable(),
    versions: z.array(HistoryEntrySchema).openapi({ description: "Newest first." }),
  })
  .openapi("History");

/** The body of a rollback: `{ "version": N }`. */
export const RollbackSchema = z
  .strictObject({
    version: z
      .number({ error: (issue) => (issue.input === undefined ? "is required" : "must be a number") })
      .int("must be an integer ≥ 0")
      .nonnegative("must be an integer ≥ 0"),
  })
  .openapi("Rollback", { example: { version: 3 } });

/** The gate config as stored and as in force. */
export const ConfigViewSchema = z
  .object({
    stored: GateConfigSchema.nullable().openapi({ description: "config:gate as stored; null when absent or invalid." }),
    effective: z
      .record(z.string(), z.unknown())
      .openapi({ description: "The config in force: stored fields over the defaults." }),
    problem: z.string().nullable(),
    version: z.number().int().nonnegative(),
    changed: z.boolean().optional(),
  })
  .openapi("GateConfigView");

/** One alias key, where it points, and why it is stray. */
export const AliasViewSchema = z
  .object({
    alias: z.string(),
    target: z.string().openapi({ description: "The model the key points to." }),
    stray: z
      .string()
      .nullable()
      .openapi({ description: "Why the key is stray (its model has no valid row that lists it), or null." }),
  })
  .openapi("AliasKey");

/** GET /v1/admin/aliases: every alias key. */
export const AliasListSchema = z
  .object({
    count: z.number().int(),
    stray: z.number().int().openapi({ description: "How many keys are stray." }),
    aliases: z.array(AliasViewSchema),
  })
  .openapi("AliasList");

/** DELETE /v1/admin/aliases/{alias}: the stray key removed, and its history version. */
export const AliasDeletedSchema = AliasViewSchema.extend({ version: z.number().int().nonnegative() }).openapi(
  "AliasDeleted",
);

/** The `{alias}` path parameter. */
export const AliasParamSchema = z.object({
  alias: ModelNameSchema.openapi({
    param: { name: "alias", in: "path" },
    description: "An alias name; a '/' in it is sent as %2F.",
  }),
});

/** DELETE /v1/admin/pending/{model}: the entry removed, as it was stored, and its history version. */
export const PendingDeletedSchema = z
  .object({
    model: z.string(),
    deleted: z
      .unknown()
      .openapi({ description: "The entry as it was stored: JSON, or its text when it does not parse" }),
    version: z
      .number()
      .int()
      .nonnegative()
      .openapi({ description: "The version of history:pending:<model> that records the deletion" }),
  })
  .openapi("PendingDeleted");
