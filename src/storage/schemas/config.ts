import { z } from "@hono/zod-openapi";
import { describeIssues, PRICING_MODES } from "../../gate";
import {
  configIssues,
  DEFAULT_GATE_CONFIG,
  GATE_CONFIG_KEY,
  HTTP_PROTOCOLS,
  MAX_EXPLORE_FRACTION,
  MAX_HOLDOUT_FRACTION,
  MAX_HORIZON,
  MAX_LEDGER_SHARDS,
  MAX_TOKENS,
  PROXY_MODES,
} from "../rules";

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
      .url({ protocol: HTTP_PROTOCOLS, error: "price_source_url must be an http(s) URL" })
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
    proxy_modes: z
      .record(
        z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "must be a tenant name ([A-Za-z0-9._-]{1,64})"),
        z.enum(PROXY_MODES),
      )
      .nullable()
      .optional()
      .openapi({
        description:
          "Per tenant, the proxy's mode (observe or enforce), over the deployment's PROXY_MODE variable (docs/integrating/proxy.md); null: every tenant takes PROXY_MODE",
      }),
    breaker_min_sessions: z
      .number()
      .int()
      .min(2)
      .max(1_000_000)
      .optional()
      .openapi({ description: "Sessions the realized-net rule needs before it judges" }),
  })
  .superRefine((config, ctx) => {
    for (const issue of configIssues(config)) ctx.addIssue({ code: "custom", ...issue });
  })
  .openapi("GateConfig");

export type GateConfigInput = z.infer<typeof GateConfigSchema>;
export type GateConfig = Required<GateConfigInput>;
// The zod-free defaults (./config-values.ts) hold every field at the schema's type.
DEFAULT_GATE_CONFIG satisfies Readonly<GateConfig>;

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
