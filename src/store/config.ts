import { z } from "@hono/zod-openapi";
import {
  DEFAULT_CACHE_HIT_RATE,
  DEFAULT_EXPECTED_CONVERSATION_DEPTH,
  DEFAULT_P_RECALL,
  DEFAULT_RECALL_INPUT_TOKENS,
  DEFAULT_RECALL_OUTPUT_TOKENS,
  DEFAULT_STUB_TOKENS,
  PRICING_MODES,
} from "../gate";
import { describeIssues } from "../gate/issues";
import { GATE_CONFIG_KEY } from "./keys";

/** Largest horizon the API accepts: far beyond any conversation, and it keeps every term finite. */
export const MAX_HORIZON = 1_000_000;
/** Largest token count the API accepts for any token parameter. */
export const MAX_TOKENS = 1_000_000_000_000;

/** The largest share of sessions the holdout may take: the treatment arm keeps at least half. */
export const MAX_HOLDOUT_FRACTION = 0.5;
/** The largest share of sessions exploration may take: it is a measurement, not the policy. */
export const MAX_EXPLORE_FRACTION = 0.5;
/** Most shards a tenant's ledger may have: a decision id keeps its shard in up to three digits. */
export const MAX_LEDGER_SHARDS = 256;
/** Shards per tenant unless config:gate says otherwise (docs/ledger.md sizes them). */
export const DEFAULT_LEDGER_SHARDS = 4;
/** How long the ledger keeps its rollups and bills unless config:gate says otherwise. */
export const DEFAULT_LEDGER_RETENTION_DAYS = 30;

const tokenCount = z.number().int().nonnegative().max(MAX_TOKENS);

/**
 * The gate config ops keep in KV under `config:gate`. Every field is
 * optional; what is left out takes the built-in default. Unknown fields are
 * refused, so a typo cannot silently leave a prior at its default.
 */
export const GateConfigSchema = z
  .strictObject({
    expected_conversation_depth: z.number().int().nonnegative().max(MAX_HORIZON).optional(),
    p_recall: z.number().min(0).max(1).optional(),
    large_offload_threshold_tokens: tokenCount.nullable().optional().openapi({
      description:
        "The size pre-filter: smaller outputs never fire. null (the default): the seed's 10,000 tokens, and in cache_aware mode no floor (the request's break-even size decides); a number is the floor in both modes",
    }),
    stub_tokens: tokenCount.optional(),
    recall_input_tokens: tokenCount.optional(),
    recall_output_tokens: tokenCount.optional(),
    pricing_cache_ttl_seconds: z.number().int().min(1).max(3600).optional(),
    pricing_max_stale_seconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .optional(),
    kv_budget_ms: z.number().int().min(1).max(10_000).optional(),
    pricing_mode: z.enum(PRICING_MODES).optional(),
    cache_hit_rate: z.number().min(0).max(1).optional(),
    price_source_url: z
      .url({ protocol: /^https?$/, error: "price_source_url must be an http(s) URL" })
      .max(2048)
      .nullable()
      .optional()
      .openapi({ description: "A LiteLLM-format price file the scheduled sync compares with KV; null: no sync" }),
    price_source_providers: z
      .array(z.string().min(1).max(64))
      .max(32)
      .nullable()
      .optional()
      .openapi({ description: "The providers the sync compares; null: every provider with a row in KV" }),
    holdout_fraction: z.number().min(0).max(MAX_HOLDOUT_FRACTION).optional(),
    ledger_shards: z.number().int().min(1).max(MAX_LEDGER_SHARDS).optional(),
    ledger_retention_days: z.number().int().min(1).max(3_650).optional(),
    ledger_raw_days: z.number().int().min(1).max(3_650).optional().openapi({
      description:
        "How long raw decisions and outcomes are kept (an outcome must arrive within it); rollups keep the rest for the retention. At most ledger_retention_days",
    }),
    ledger_timeout_ms: z.number().int().min(1).max(30_000).optional(),
    learning_enabled: z.boolean().optional().openapi({
      description: "Learn priors and run the breaker from the ledger (docs/learning.md); false: config priors only",
    }),
    learning_prior_weight: z
      .number()
      .positive()
      .max(1_000_000)
      .optional()
      .openapi({ description: "w: how many observations the parent level's value counts as" }),
    learning_window_days: z
      .number()
      .int()
      .min(1)
      .max(3_650)
      .optional()
      .openapi({ description: "The learning window; at most the retention is used" }),
    learning_credible: z.number().gt(0).lt(1).nullable().optional().openapi({
      description: "A learned value's central credible interval becomes its range (the robust rule); null: off",
    }),
    learning_refresh_seconds: z
      .number()
      .int()
      .min(60)
      .max(86_400)
      .optional()
      .openapi({ description: "How often a tenant's learned value is recomputed" }),
    learning_explore_fraction: z.number().min(0).max(MAX_EXPLORE_FRACTION).optional().openapi({
      description:
        "The share of a tool's sessions that decide on its learned p's lower credible bound, so a tool that stopped firing keeps being measured (docs/learning.md)",
    }),
    breaker_probe_fraction: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .openapi({ description: "The share of sessions an open breaker still decides as usual" }),
    breaker_min_sessions: z
      .number()
      .int()
      .min(2)
      .max(1_000_000)
      .optional()
      .openapi({ description: "Sessions the realized-net rule needs before it judges" }),
  })
  .superRefine((config, ctx) => {
    const retention = config.ledger_retention_days ?? DEFAULT_LEDGER_RETENTION_DAYS;
    if (config.ledger_raw_days !== undefined && config.ledger_raw_days > retention) {
      ctx.addIssue({
        code: "custom",
        path: ["ledger_raw_days"],
        message: `must be at most ledger_retention_days (${retention})`,
      });
    }
  })
  .openapi("GateConfig");

export type GateConfigInput = z.infer<typeof GateConfigSchema>;
export type GateConfig = Required<GateConfigInput>;

/** The config in force when `config:gate` is absent or leaves a field out. */
export const DEFAULT_GATE_CONFIG: Readonly<GateConfig> = Object.freeze({
  expected_conversation_depth: DEFAULT_EXPECTED_CONVERSATION_DEPTH,
  p_recall: DEFAULT_P_RECALL,
  // Each mode's own floor (the seed's 10,000; none in cache_aware) unless ops set one.
  large_offload_threshold_tokens: null,
  stub_tokens: DEFAULT_STUB_TOKENS,
  recall_input_tokens: DEFAULT_RECALL_INPUT_TOKENS,
  recall_output_tokens: DEFAULT_RECALL_OUTPUT_TOKENS,
  pricing_cache_ttl_seconds: 60,
  pricing_max_stale_seconds: 3_600,
  kv_budget_ms: 100,
  // The reference, unless ops choose otherwise: existing callers see no change.
  pricing_mode: "seed",
  // Not always the conservative side: a warm cache shrinks the carry saving but cheapens the recall hop (docs/economics.md).
  cache_hit_rate: DEFAULT_CACHE_HIT_RATE,
  // No price sync until ops name a source.
  price_source_url: null,
  price_source_providers: null,
  // Nobody held out unless ops choose a holdout: today's answers, unchanged.
  holdout_fraction: 0,
  ledger_shards: DEFAULT_LEDGER_SHARDS,
  ledger_retention_days: DEFAULT_LEDGER_RETENTION_DAYS,
  // Long enough for outcomes and bills to arrive; rollups keep the figures for the retention (docs/ledger.md).
  ledger_raw_days: 2,
  // Past this the gate's ledger write is counted as failed; the answer never waits for it.
  ledger_timeout_ms: 5_000,
  // With no outcomes, learning passes the config's priors through unchanged: on by default costs nothing.
  learning_enabled: true,
  learning_prior_weight: 10,
  learning_window_days: 7,
  learning_credible: null,
  learning_refresh_seconds: 300,
  // Only a decision with something learned explores: a tenant with no outcomes answers as the config does.
  learning_explore_fraction: 0.02,
  breaker_probe_fraction: 0.1,
  breaker_min_sessions: 30,
});

/**
 * Parses the stored config text into a complete config, or says what is
 * wrong with it. Plain data in, tagged result out.
 *
 * @example
 * parseGateConfig('{"p_recall": 0.4}') // { ok: true, config: { ...DEFAULT_GATE_CONFIG, p_recall: 0.4 } }
 * parseGateConfig(null)                // { ok: true, config: DEFAULT_GATE_CONFIG }
 */
export function parseGateConfig(
  text: string | null,
): { ok: true; config: Readonly<GateConfig> } | { ok: false; detail: string } {
  if (text === null) return { ok: true, config: DEFAULT_GATE_CONFIG };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, detail: `${GATE_CONFIG_KEY} is not valid JSON` };
  }
  const parsed = GateConfigSchema.safeParse(json);
  if (!parsed.success) return { ok: false, detail: `${GATE_CONFIG_KEY} is invalid: ${describeIssues(parsed.error)}` };
  return { ok: true, config: Object.freeze({ ...DEFAULT_GATE_CONFIG, ...parsed.data }) };
}
