/**
 * A gate request's inputs with every default filled in: the config's priors,
 * a range's midpoint, the cache-aware fields in that mode only, and the
 * provider's cache TTL once the row is known (docs/design/economics.md §5.1).
 *
 * @module
 */
import {
  CACHE_TTLS,
  CHARS_PER_TOKEN,
  cacheTtlRefusal,
  defaultCacheTtl,
  OFFLOAD_AT,
  type PricingMode,
  preFilterTokens,
  type Range,
  RECALL_PLACEMENTS,
  rangeMidpoint,
} from "../../../gate";
import type { ErrorIssue } from "../../../http";
import type { GateConfig } from "../../../storage/schemas";
import { CACHE_AWARE_ECONOMICS_FIELDS, type ResolvedPricing } from "../../kernel";
import type { GateRequest, ResolvedInputs } from "../schemas";

// The fields only the cache-aware mode reads.
export const CACHE_AWARE_FIELDS = ["cache_hit_rate", "context_tokens", ...CACHE_AWARE_ECONOMICS_FIELDS] as const;

/**
 * Fills every omitted field from the config's priors and defaults; a prior
 * given only as a range stands at the range's midpoint (the horizon's
 * rounded down). The cache-aware inputs are filled in (and echoed) only in
 * that mode; ranges are echoed as given.
 *
 * @example
 * resolveInputs({ model_name: "gpt-5", output_chars: 80_000 }, DEFAULT_GATE_CONFIG)
 * // { model_name: "gpt-5", output_tokens: 20000, output_chars: 80000, horizon: 4, recall_probability: 0.25, ... }
 */
export function resolveInputs(
  body: GateRequest,
  config: Readonly<GateConfig>,
  mode: PricingMode = "seed",
): ResolvedInputs {
  const resolved: ResolvedInputs = {
    model_name: body.model_name,
    output_tokens: body.output_tokens ?? (body.output_chars ?? 0) / CHARS_PER_TOKEN,
    horizon: pointOf(body.horizon, body.horizon_range, true) ?? config.expected_conversation_depth,
    recall_probability: pointOf(body.recall_probability, body.recall_probability_range, false) ?? config.p_recall,
    large_offload_threshold_tokens: preFilterTokens(
      {
        large_offload_threshold_tokens:
          body.large_offload_threshold_tokens ?? config.large_offload_threshold_tokens ?? undefined,
      },
      mode,
    ),
    stub_tokens: body.stub_tokens ?? config.stub_tokens,
    recall_input_tokens: body.recall_input_tokens ?? config.recall_input_tokens,
    recall_output_tokens: body.recall_output_tokens ?? config.recall_output_tokens,
  };
  if (body.output_chars !== undefined) resolved.output_chars = body.output_chars;
  if (body.horizon_range !== undefined) resolved.horizon_range = body.horizon_range;
  if (body.recall_probability_range !== undefined) resolved.recall_probability_range = body.recall_probability_range;
  if (mode === "cache_aware") {
    resolved.cache_hit_rate = pointOf(body.cache_hit_rate, body.cache_hit_rate_range, false) ?? config.cache_hit_rate;
    resolved.context_tokens = body.context_tokens ?? 0;
    resolved.offload_at = body.offload_at ?? OFFLOAD_AT[0];
    resolved.suffix_tokens = body.suffix_tokens ?? 0;
    resolved.cache_ttl = body.cache_ttl ?? CACHE_TTLS[0];
    resolved.recall_placement = body.recall_placement ?? RECALL_PLACEMENTS[0];
    if (body.cache_hit_rate_range !== undefined) resolved.cache_hit_rate_range = body.cache_hit_rate_range;
  }
  return resolved;
}

/**
 * The cache TTL the model's provider keeps (docs/design/economics.md §5.1): a request that names
 * none is priced at the row's default ("in_memory" for OpenAI, "implicit" for Gemini, "5m" for
 * Anthropic), and one that names a TTL the row does not offer is refused, naming `cache_ttl`.
 * Read once the row is known; an unpriced or unreadable row keeps the request's TTL (nothing is
 * priced, and a fault never becomes a client error).
 */
export function providerTtl(
  body: GateRequest,
  resolved: ResolvedInputs,
  mode: PricingMode,
  pricing: ResolvedPricing,
  path: (string | number)[],
): ErrorIssue[] {
  const { lookup } = pricing.read;
  if (mode !== "cache_aware" || lookup.status !== "priced") return [];
  if (body.cache_ttl === undefined) {
    resolved.cache_ttl = defaultCacheTtl(lookup.row);
    return [];
  }
  const refusal = cacheTtlRefusal(lookup.row, body.cache_ttl, body.model_name);
  return refusal === null ? [] : [{ path: [...path, "cache_ttl"].join("."), message: refusal }];
}

/** The point the caller gave, else its range's midpoint, else undefined (the prior). */
function pointOf(point: number | undefined, range: Range | undefined, integer: boolean): number | undefined {
  if (point !== undefined || range === undefined) return point;
  return rangeMidpoint(range, integer);
}
