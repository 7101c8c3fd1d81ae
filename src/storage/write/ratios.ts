import type { ErrorIssue } from "../../http";
import type { PricingRow } from "../schemas";

/** Anthropic's cache price ratios to the input price: read, 5-minute write, 1-hour write. */
export const ANTHROPIC_CACHE_RATIOS = { cache_read: 0.1, cache_write: 1.25, cache_write_1h: 2 } as const;

/**
 * Warnings (not errors) for an Anthropic row whose cache prices are not the
 * usual 1.25× (5-minute write) and 2× (1-hour write) of input, or whose
 * read costs more than 0.1× input. Cheaper reads are not flagged: Anthropic
 * cut them for newer models (0.05× on Opus 5.5 and Sonnet 5.5, 0.025× on
 * Fable 5.1).
 *
 * @example
 * cacheRatioWarnings("claude-x", { input: 3, output: 15, cache_read: 0.5, provider: "anthropic" })
 * // [{ path: "cache_read", message: "is 0.5, not at most 0.1 × input (0.3), as Anthropic prices it" }]
 */
export function cacheRatioWarnings(model: string, row: PricingRow): ErrorIssue[] {
  const anthropic =
    row.provider === undefined ? model.startsWith("claude") : row.provider.toLowerCase() === "anthropic";
  if (!anthropic) return [];
  const tiers: [string, Partial<PricingRow>, number][] = [["", row, row.input]];
  if (row.long_context !== undefined)
    tiers.push(["long_context.", row.long_context, row.long_context.input ?? row.input]);
  const warnings: ErrorIssue[] = [];
  for (const [prefix, tier, input] of tiers) {
    for (const [field, ratio] of Object.entries(ANTHROPIC_CACHE_RATIOS)) {
      const actual = tier[field as keyof typeof ANTHROPIC_CACHE_RATIOS];
      const expected = input * ratio;
      const tolerance = 1e-9 * Math.max(1, expected);
      const odd =
        field === "cache_read"
          ? actual !== undefined && actual > expected + tolerance
          : actual !== undefined && Math.abs(actual - expected) > tolerance;
      if (odd) {
        const wanted =
          field === "cache_read" ? `at most ${ratio} × input (${expected})` : `${ratio} × input (${expected})`;
        warnings.push({ path: `${prefix}${field}`, message: `is ${actual}, not ${wanted}, as Anthropic prices it` });
      }
    }
  }
  return warnings;
}

// A JSON number literal after a key: `"input": 1e-400`.
const NUMBER_AFTER_KEY = /"([A-Za-z0-9_]+)"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/**
 * Warnings for prices that read as 0 without being 0 in the request (a
 * literal like `1e-400` underflows), and for an `output` of 0 next to a
 * non-zero `input`: either makes every recall hop look free.
 *
 * @example
 * zeroPriceWarnings({ input: 3, output: 0 }, '{"input":3,"output":0}')
 * // [{ path: "output", message: "is 0 while input is 3: the recall hop's answer would be priced as free" }]
 */
export function zeroPriceWarnings(row: PricingRow, bodyText: string): ErrorIssue[] {
  const warnings: ErrorIssue[] = [];
  for (const [, key, literal] of bodyText.matchAll(NUMBER_AFTER_KEY)) {
    const mantissa = literal!.split(/[eE]/)[0]!;
    if (Number(literal) === 0 && /[1-9]/.test(mantissa)) {
      warnings.push({
        path: key!,
        message: `is ${literal}, which underflows to 0: every term it prices reads as free`,
      });
    }
  }
  if (row.output === 0 && row.input > 0) {
    warnings.push({
      path: "output",
      message: `is 0 while input is ${row.input}: the recall hop's answer would be priced as free`,
    });
  }
  return warnings;
}

/**
 * A warning for a row without `cache_read` (unless it says its model has no
 * prompt cache): cache-aware decisions at q > 0 on it do not fire
 * (`pricing_incomplete`), since a cache hit would otherwise be priced at the
 * input price. The CLI's `validate` gives the same warning.
 *
 * @example
 * cacheGapWarnings({ input: 1.5, output: 9 })
 * // [{ path: "cache_read", message: "is missing: cache-aware decisions at q > 0 on this row do not fire (pricing_incomplete); ..." }]
 */
export function cacheGapWarnings(row: PricingRow): ErrorIssue[] {
  if (row.prompt_cache === false || row.cache_read !== undefined) return [];
  const later = row.scheduled?.find((change) => change.cache_read !== undefined);
  const until = later === undefined ? "" : ` until ${later.effective_at}, when a scheduled change sets one`;
  return [
    {
      path: "cache_read",
      message:
        `is missing${until}: cache-aware decisions at q > 0 on this row do not fire (pricing_incomplete); ` +
        "give the provider's cache-read price, or prompt_cache: false if the model has no prompt cache",
    },
  ];
}
