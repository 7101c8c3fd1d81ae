import { z } from "@hono/zod-openapi";
import { CACHE_TTLS } from "../../gate";
import {
  aliasIssues,
  changeIssues,
  MAX_PRICE_USD_PER_MILLION,
  MAX_SCHEDULED_CHANGES,
  MODEL_NAME_PATTERN,
  own,
  RESERVED_MODEL_NAMES,
  rowIssues,
  SOURCE_URL_MAX,
  SOURCE_URL_PROTOCOLS,
} from "../rules";

/** A model name; its pattern and reserved names are ./names.ts's. */
export const ModelNameSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .regex(MODEL_NAME_PATTERN, "must match [A-Za-z0-9._:/@+-]{1,128}")
  .refine((name) => !RESERVED_MODEL_NAMES.includes(name), "is a reserved name")
  .openapi({ example: "claude-opus-4-6" });

// Messages name no field: the error's path does, once ("input must not be negative").
const price = () =>
  z
    .number({ error: (issue) => (issue.input === undefined ? "is required" : "must be a number") })
    .nonnegative("must not be negative")
    .max(MAX_PRICE_USD_PER_MILLION, `must be at most ${MAX_PRICE_USD_PER_MILLION} USD per million tokens`);

const tierPrices = {
  input: price(),
  output: price(),
  cache_read: price().optional(),
  cache_write: price().optional(),
  cache_write_1h: price().optional(),
};

// A source is a page ops can open (http or https), or the local file a row
// was imported from (file:); never javascript: or data:. The console links
// only http(s) sources.
const SourceUrlSchema = z
  .url({ protocol: SOURCE_URL_PROTOCOLS, error: "must be an http(s) URL, or a file: URL for a local import" })
  .max(SOURCE_URL_MAX, `must be at most ${SOURCE_URL_MAX} characters`);

/**
 * A long-context tier: when a request's input exceeds `threshold_tokens`,
 * every token of it is priced at the tier's rates. A price the tier leaves
 * out falls back to the base price.
 */
export const LongContextTierSchema = z
  .strictObject({
    threshold_tokens: z.number().int().positive("must be a positive integer"),
    input: tierPrices.input.optional(),
    output: tierPrices.output.optional(),
    cache_read: tierPrices.cache_read,
    cache_write: tierPrices.cache_write,
    cache_write_1h: tierPrices.cache_write_1h,
  })
  .openapi("LongContextTier");

/**
 * One dated change of a row's prices: from `effective_at` (an ISO instant,
 * with Z or an offset) on, the prices it names replace the row's; those it
 * leaves out stay as they were. `long_context` overlays the tier field by
 * field.
 */
export const ScheduledChangeSchema = z
  .strictObject({
    effective_at: z.iso.datetime({ offset: true, error: "must be an ISO instant, e.g. 2027-01-01T00:00:00Z" }),
    input: tierPrices.input.optional(),
    output: tierPrices.output.optional(),
    cache_read: tierPrices.cache_read,
    cache_write: tierPrices.cache_write,
    cache_write_1h: tierPrices.cache_write_1h,
    long_context: LongContextTierSchema.partial().optional(),
    source: SourceUrlSchema.optional(),
  })
  .superRefine((change, ctx) => {
    for (const issue of changeIssues(change)) ctx.addIssue({ code: "custom", ...issue });
  })
  .openapi("ScheduledChange", { example: { effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5 } });

export type ScheduledChange = z.infer<typeof ScheduledChangeSchema>;

/**
 * One model's prices in USD per million tokens, under the reference's field
 * names (`input`, `output`). Both are required here: a row that silently
 * prices output at 0 would under-price every recall hop.
 *
 * @example
 * PricingRowSchema.parse({ input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 })
 */
export const PricingRowSchema = z
  .strictObject({
    ...tierPrices,
    long_context: LongContextTierSchema.optional(),
    aliases: z
      .array(ModelNameSchema)
      .max(32)
      .superRefine((aliases, ctx) => {
        for (const issue of aliasIssues(aliases)) ctx.addIssue({ code: "custom", ...issue });
      })
      .optional(),
    provider: z.string().min(1).max(64).optional(),
    source: SourceUrlSchema.optional(),
    source_note: z.string().min(1).max(500, "must be at most 500 characters").optional().openapi({
      description:
        "How the figures were checked: which came from the provider, which only from a tracker, which could not be confirmed.",
    }),
    verified_at: z.iso.date("must be a date (YYYY-MM-DD)").optional(),
    deprecated_at: z.iso.date("must be a date (YYYY-MM-DD)").optional(),
    retires_at: z.iso.date("must be a date (YYYY-MM-DD)").optional(),
    replaced_by: ModelNameSchema.optional(),
    lifecycle_source: SourceUrlSchema.optional(),
    cache_ttls: z
      .array(
        z.enum(CACHE_TTLS, { error: `must list cache TTLs among ${CACHE_TTLS.map((t) => `"${t}"`).join(", ")}` }),
        {
          error: "must be an array of cache TTLs",
        },
      )
      .min(1, "must list at least one cache TTL")
      .max(CACHE_TTLS.length)
      .refine((ttls) => new Set(ttls).size === ttls.length, "must not repeat a cache TTL")
      .optional()
      .openapi({
        description:
          'The cache TTLs the model offers, its default first: "5m" and "1h" (Anthropic), "in_memory" and "24h" (OpenAI\'s ' +
          'prompt_cache_retention), "implicit" (Gemini). Omitted: the provider\'s (anthropic, openai, google), else any, "5m" first. ' +
          "A cache-aware request for a TTL the model does not offer is a 400 naming cache_ttl.",
        example: ["5m", "1h"],
      }),
    min_cache_prefix_tokens: z
      .number({ error: "must be a whole number of tokens" })
      .int({ error: "must be a whole number of tokens" })
      .min(1, { error: "must be at least 1" })
      .max(1_000_000, { error: "must be at most 1,000,000" })
      .optional()
      .openapi({
        description:
          "The shortest prefix the provider caches (Anthropic: 4,096 on Opus 4.5–4.8 and Haiku 4.5, 2,048 on Sonnet 4.6 and Fable 5). Cache-aware pricing (gate, plan, replay, the ledger's realized net) prices a request below it as uncached: every token at the input price. Omitted: any prefix is cached.",
      }),
    chars_per_token: z
      .number({ error: "must be a number" })
      .min(0.5, { error: "must be at least 0.5" })
      .max(16, { error: "must be at most 16" })
      .optional()
      .openapi({
        description:
          "Characters per token of the model's tokenizer, measured on real text: cache-aware mode converts `output_chars` with it (and says so in `inputs.chars_per_token`). Omitted: 4. Seed mode always uses 4, as the reference does.",
      }),
    prompt_cache: z.boolean({ error: "must be true or false" }).optional().openapi({
      description:
        "false: the model has no prompt cache; cache-aware decisions price it at q = 0. Omitted: it has one.",
    }),
    scheduled: z.array(ScheduledChangeSchema).max(MAX_SCHEDULED_CHANGES).optional().openapi({
      description:
        "Dated price changes, oldest first: the gate prices each request at the change in force when it arrives.",
    }),
  })
  .superRefine((row, ctx) => {
    for (const issue of rowIssues(row)) ctx.addIssue({ code: "custom", ...issue });
  })
  .openapi("PricingRow", {
    example: { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25, cache_write_1h: 10, provider: "anthropic" },
  });

export type PricingRow = z.infer<typeof PricingRowSchema>;

/**
 * pricing.seed.json: the rows `npm run dev` seeds into local KV, keyed by
 * canonical model name.
 */
export const PricingSeedSchema = z
  .strictObject({
    $schema: z.string().optional(),
    // A record would drop a "__proto__" key before its name is checked:
    // refuse it while it is still the parsed file's own key.
    models: z.preprocess(
      (models, ctx) => {
        if (models !== null && typeof models === "object" && Object.hasOwn(models, "__proto__")) {
          ctx.issues.push({ code: "custom", path: ["__proto__"], message: "is a reserved name", input: models });
        }
        return models;
      },
      z.record(ModelNameSchema, PricingRowSchema),
    ),
  })
  .superRefine((seed, ctx) => {
    const owner = new Map<string, string>();
    for (const [model, row] of Object.entries(seed.models)) {
      for (const alias of row.aliases ?? []) {
        const clash = Object.hasOwn(seed.models, alias) ? alias : owner.get(alias);
        if (clash !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["models", model, "aliases"],
            message: `alias ${alias} is already claimed by ${clash}`,
          });
        }
        owner.set(alias, model);
      }
    }
    for (const [model, row] of Object.entries(seed.models)) {
      // A replacement without a row would answer "unpriced" from the day the model retires.
      const next = row.replaced_by;
      if (next !== undefined && !Object.hasOwn(seed.models, next) && !owner.has(next)) {
        ctx.addIssue({
          code: "custom",
          path: ["models", model, "replaced_by"],
          message: `names ${next}, which has no row (nor alias) in this seed`,
        });
      }
    }
    for (const model of Object.keys(seed.models)) {
      const loop = replacementLoop(seed.models, model);
      if (loop !== null)
        ctx.addIssue({
          code: "custom",
          path: ["models", model, "replaced_by"],
          message: `replacements loop: ${loop.join(" → ")}`,
        });
    }
  });

/**
 * The replacement chain from `model` when it comes back to a model already
 * on it (a loop the gate would refuse to follow), else null.
 *
 * @example
 * replacementLoop({ a: { input: 1, output: 1, replaced_by: "b" }, b: { input: 1, output: 1, replaced_by: "a" } }, "a") // ["a", "b", "a"]
 */
export function replacementLoop(models: Readonly<Record<string, PricingRow>>, model: string): string[] | null {
  const chain = [model];
  for (let next = own(models, model)?.replaced_by; next !== undefined; next = own(models, next)?.replaced_by) {
    const seen = chain.includes(next);
    chain.push(next);
    if (seen) return chain[0] === next ? chain : null;
  }
  return null;
}

export type PricingSeed = z.infer<typeof PricingSeedSchema>;

/**
 * A stored text as JSON when it parses, else the text itself: what the admin
 * API shows and history records, so they show exactly what was there.
 *
 * @example
 * storedValue('{"input":1}') // { input: 1 }
 * storedValue("not json")    // "not json"
 */
export function storedValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
