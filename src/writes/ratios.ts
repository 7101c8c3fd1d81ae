import type { ErrorIssue } from "../http/errors";
import type { PricingRow } from "../store/schema";

/** Anthropic's cache price ratios to the input price: read, 5-minute write, 1-hour write. */
export const ANTHROPIC_CACHE_RATIOS = { cache_read: 0.1, cache_write: 1.25, cache_write_1h: 2 } as const;

/**
 * Warnings (not errors) for an Anthropic row whose cache prices are not the
 * usual 0.1× (read), 1.25× (5-minute write) and 2× (1-hour write) of input.
 *
 * @example
 * cacheRatioWarnings("claude-x", { input: 3, output: 15, cache_read: 0.5, provider: "anthropic" })
 * // [{ path: "cache_read", message: "is 0.5, not 0.1 × input (0.3), as Anthropic prices it" }]
 */
export function cacheRatioWarnings(model: string, row: PricingRow): ErrorIssue[] {
  const anthropic = row.provider === undefined ? model.startsWith("claude") : row.provider.toLowerCase() === "anthropic";
  if (!anthropic) return [];
  const tiers: [string, Partial<PricingRow>, number][] = [["", row, row.input]];
  if (row.long_context !== undefined) tiers.push(["long_context.", row.long_context, row.long_context.input ?? row.input]);
  const warnings: ErrorIssue[] = [];
  for (const [prefix, tier, input] of tiers) {
    for (const [field, ratio] of Object.entries(ANTHROPIC_CACHE_RATIOS)) {
      const actual = tier[field as keyof typeof ANTHROPIC_CACHE_RATIOS];
      const expected = input * ratio;
      if (actual !== undefined && Math.abs(actual - expected) > 1e-9 * Math.max(1, expected)) {
        warnings.push({ path: `${prefix}${field}`, message: `is ${actual}, not ${ratio} × input (${expected}), as Anthropic prices it` });
      }
    }
  }
  return warnings;
}
