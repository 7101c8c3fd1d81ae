/**
 * The gate request's checks across fields, as plain code: the zod schema
 * runs them in its superRefine (./schema.ts), and the compiled validator
 * (./compiled.ts) runs the same functions after the generated code, so the
 * rules JSON Schema cannot say live in one place. Free of zod, so the gate's
 * startup path may import it.
 *
 * @module
 */
import type { OFFLOAD_AT, Range } from "../../gate";

/** The cache-aware-only fields of economics v2, refused in seed mode like cache_hit_rate and context_tokens. */
export const CACHE_AWARE_ECONOMICS_FIELDS = [
  "offload_at",
  "suffix_tokens",
  "cache_ttl",
  "recall_placement",
  "cache_hit_rate_range",
] as const;

/** What the cross-field checks read. */
export interface CrossFieldBody {
  output_tokens?: number;
  output_chars?: number;
  horizon?: number;
  recall_probability?: number;
  cache_hit_rate?: number;
  offload_at?: (typeof OFFLOAD_AT)[number];
  suffix_tokens?: number;
  horizon_range?: Range;
  recall_probability_range?: Range;
  cache_hit_rate_range?: Range;
}

/** One problem the cross-field checks found, in zod's custom issue shape. */
export interface CrossFieldIssue {
  path: string[];
  message: string;
}

const RANGED = [
  ["horizon", "horizon_range"],
  ["recall_probability", "recall_probability_range"],
  ["cache_hit_rate", "cache_hit_rate_range"],
] as const;

/**
 * The economics fields' checks: each range in order, each point inside its
 * range, and suffix_tokens only with a retroactive offload.
 *
 * @example
 * economicsIssues({ horizon: 9, horizon_range: [2, 6] })
 * // [{ path: ["horizon"], message: "must lie within horizon_range [2, 6]" }]
 */
export function economicsIssues(body: CrossFieldBody): CrossFieldIssue[] {
  const issues: CrossFieldIssue[] = [];
  for (const [point, field] of RANGED) {
    const bounds = body[field];
    if (bounds === undefined) continue;
    const [lo, hi] = bounds;
    if (lo > hi) {
      issues.push({ path: [field], message: `must be [lo, hi] with lo ≤ hi; got [${lo}, ${hi}]` });
      continue;
    }
    const value = body[point];
    if (value !== undefined && (value < lo || value > hi)) {
      issues.push({ path: [point], message: `must lie within ${field} [${lo}, ${hi}]` });
    }
  }
  if (body.suffix_tokens !== undefined && body.offload_at !== "retroactive") {
    issues.push({ path: ["suffix_tokens"], message: 'only applies when offload_at is "retroactive"' });
  }
  return issues;
}

/**
 * Every check across a gate request's fields, in the order zod reports
 * them: the economics fields', then exactly one of output_tokens and
 * output_chars.
 *
 * @example
 * gateRequestIssues({ output_tokens: 1, output_chars: 4 })
 * // [{ path: ["output_chars"], message: "cannot be given with output_tokens" }]
 */
export function gateRequestIssues(body: CrossFieldBody): CrossFieldIssue[] {
  const issues = economicsIssues(body);
  if (body.output_tokens === undefined && body.output_chars === undefined) {
    issues.push({ path: ["output_tokens"], message: "is required (or give output_chars)" });
  }
  if (body.output_tokens !== undefined && body.output_chars !== undefined) {
    issues.push({ path: ["output_chars"], message: "cannot be given with output_tokens" });
  }
  return issues;
}
