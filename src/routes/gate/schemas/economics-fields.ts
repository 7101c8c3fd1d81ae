import { z } from "@hono/zod-openapi";
import { CACHE_TTLS, OFFLOAD_AT, RECALL_PLACEMENTS } from "../../../gate";
import { MAX_HORIZON } from "../../../storage/rules";
import { requiredOr, tokenCount } from "../../kernel/openapi";

/**
 * The request fields of retroactive offload, the 1-hour cache and robust
 * ranges (docs/design/economics.md §4–§6): where the stub goes in, which
 * cache write, and ranges of the priors. Spread into GateRequestSchema; the
 * checks across fields are `economicsIssues`.
 */

const quoted = (values: readonly string[]) => values.map((value) => `"${value}"`).join(" or ");

/** A [lo, hi] pair inside [min, max]; lo ≤ hi is checked with the other fields. */
const range = (min: number, max: number, integer: boolean) => {
  const kind = integer ? "integers" : "numbers";
  const end = z
    .number({ error: requiredOr(`must hold two ${kind} [lo, hi]`) })
    .min(min, `must hold two ${kind} between ${min} and ${max}`)
    .max(max, `must hold two ${kind} between ${min} and ${max}`);
  const bound = integer ? end.int(`must hold two integers between ${min} and ${max}`) : end;
  return z
    .tuple([bound, bound], { error: requiredOr(`must be [lo, hi]: two ${kind} between ${min} and ${max}`) })
    .optional();
};

export const ECONOMICS_FIELDS = {
  offload_at: z
    .enum(OFFLOAD_AT, { error: requiredOr(`must be ${quoted(OFFLOAD_AT)}`) })
    .optional()
    .openapi({
      description:
        'When the stub goes in: "entry" (before the output is first read; default) or "retroactive" (the output is already in the ' +
        "cached history, so every cached token after it is written again). cache_aware only (refused in seed mode).",
      example: "retroactive",
    }),
  suffix_tokens: tokenCount(30_000).openapi({
    description:
      'A: cached tokens of history after the output. Only with offload_at "retroactive" (refused otherwise). Default: 0.',
  }),
  cache_ttl: z
    .enum(CACHE_TTLS, { error: requiredOr(`must be ${quoted(CACHE_TTLS)}`) })
    .optional()
    .openapi({
      description:
        'Which cache write a cached token pays: "5m" (default) or "1h" (cache_write_1h, falling back to the 5-minute write when the ' +
        "row has none). cache_aware only (refused in seed mode).",
      example: "1h",
    }),
  recall_placement: z
    .enum(RECALL_PLACEMENTS, { error: requiredOr(`must be ${quoted(RECALL_PLACEMENTS)}`) })
    .optional()
    .openapi({
      description:
        "Where the harness's recall puts the original back: \"append\" (default; a new tool result at the end, as the project's " +
        "clients do: the recall call reads the whole history before it from the cache and writes only the recalled slice) or " +
        '"in_place" (restored where the stub stood: the cache is read up to the stub and everything after it is written). ' +
        "Changes a figure only on a retroactive offload. cache_aware only (refused in seed mode).",
      example: "append",
    }),
  horizon_range: range(0, MAX_HORIZON, true).openapi({
    description:
      "[lo, hi]: the horizon is not known better than this. The gate fires only if net is positive at the point and at every corner " +
      "of the ranges given. Without horizon, the point is the midpoint rounded down.",
    example: [2, 6],
  }),
  recall_probability_range: range(0, 1, false).openapi({
    description:
      "[lo, hi] for recall_probability, as horizon_range. Without recall_probability, the point is the midpoint.",
    example: [0.1, 0.5],
  }),
  cache_hit_rate_range: range(0, 1, false).openapi({
    description:
      "[lo, hi] for cache_hit_rate, as horizon_range. cache_aware only (refused in seed mode). Without cache_hit_rate, the point is the midpoint.",
    example: [0.8, 1],
  }),
};

// Their checks across fields are plain code, which the compiled validator runs too.
