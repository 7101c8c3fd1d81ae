/**
 * The gate's defaults. The reference does not publish its own values; these
 * are the project's, fixed by the gate service issue.
 */

/** Outputs below this many tokens never fire (the pre-filter). */
export const DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS = 10_000;
/**
 * cache_aware's size floor when neither the request nor `config:gate` sets
 * one: none. The economics are the pre-filter there (the request's break-even
 * size); real harnesses truncate their outputs far below 10,000 tokens, so
 * the seed's floor would keep most of the saving off the table
 * (docs/design/economics.md §1.2).
 */
export const DEFAULT_CACHE_AWARE_FLOOR_TOKENS = 0;
/** Tokens the stub that replaces an offloaded output costs on every turn. */
export const DEFAULT_STUB_TOKENS = 200;
/** Tokens the recalled slice re-enters the context with on a recall hop. */
export const DEFAULT_RECALL_INPUT_TOKENS = 2_000;
/** Tokens the model answers with on a recall hop. */
export const DEFAULT_RECALL_OUTPUT_TOKENS = 500;
/** The horizon prior: remaining turns an output would otherwise be carried. */
export const DEFAULT_EXPECTED_CONVERSATION_DEPTH = 4;
/** The p_recall prior: how likely an offloaded output is needed again. */
export const DEFAULT_P_RECALL = 0.25;
/** USD-per-million prices become per-token rates by this divisor. */
export const TOKENS_PER_MILLION = 1_000_000;
/** The cache_hit_rate prior (q): how likely a later turn finds the prefix still cached. */
export const DEFAULT_CACHE_HIT_RATE = 0.9;
/** Characters per token, when a caller gives output_chars instead of output_tokens. */
export const CHARS_PER_TOKEN = 4;

/** How the gate prices a carried token: "seed" is the reference. Every schema takes its modes from here. */
export const PRICING_MODES = ["seed", "cache_aware"] as const;

/** Why the gate decided as it did, in a form machines can group by. Every schema takes its codes from here. */
export const REASON_CODES = [
  "below_threshold",
  "unpriced",
  "pricing_unavailable",
  "net_positive",
  "net_not_positive",
  "worst_case_not_positive",
  "holdout",
  "pricing_incomplete",
  "breaker_open",
] as const;

/** When the stub goes in (cache_aware): before the output is first read, or into history already cached. Default first. */
export const OFFLOAD_AT = ["entry", "retroactive"] as const;

/**
 * Where a recall hop puts the original back (cache_aware): "append" adds it as a new tool result
 * at the end, so the whole history before it is a cached prefix (our clients' recall_tool_output
 * does this); "in_place" restores it where the stub stood, so the cache is read only up to the stub.
 * Default first (docs/design/economics.md §4.2).
 */
export const RECALL_PLACEMENTS = ["append", "in_place"] as const;

/**
 * How long the provider keeps a cached prefix (cache_aware), and so which write a cached token pays:
 * Anthropic's 5-minute and 1-hour caches, OpenAI's `prompt_cache_retention` ("in_memory", "24h",
 * models before GPT-5.6), OpenAI's `prompt_cache_options.ttl` "30m" (GPT-5.6 and later, its only
 * TTL), Gemini's implicit cache. Only "1h" has its own write price; the others pay the row's
 * 5-minute write (the input price where the provider charges no write; 1.25x input on GPT-5.6+).
 * New TTLs go at the end: replay indexes its rate memo by position. docs/design/economics.md §5.1, §5.2.
 */
export const CACHE_TTLS = ["5m", "1h", "in_memory", "24h", "implicit", "30m"] as const;

/**
 * The TTLs each provider offers, its default first: the TTLs of a row that names its provider and
 * does not list its own `cache_ttls`. A row with neither may be priced at any TTL, "5m" by default.
 */
export const PROVIDER_CACHE_TTLS: Readonly<Record<string, readonly (typeof CACHE_TTLS)[number][]>> = {
  anthropic: ["5m", "1h"],
  openai: ["in_memory", "24h"],
  google: ["implicit"],
};

/**
 * How long each TTL keeps an idle prefix, in seconds: what replay expires a cache by. OpenAI's
 * in-memory cache is cleared after 5–10 minutes of inactivity (always within an hour): the short
 * end, as a miss costs more than a hit. Gemini does not state its implicit cache's life: 5 minutes.
 */
export const CACHE_TTL_SECONDS: Readonly<Record<(typeof CACHE_TTLS)[number], number>> = {
  "5m": 300,
  "1h": 3_600,
  in_memory: 300,
  "24h": 86_400,
  implicit: 300,
  "30m": 1_800,
};

/** Why a clearing plan came out as it did. Every schema takes its codes from here. */
export const PLAN_REASON_CODES = [
  "plan_positive",
  "plan_not_positive",
  "unpriced",
  "pricing_unavailable",
  "no_candidates",
  "holdout",
  "pricing_incomplete",
] as const;
