import { pyFixed } from "./pyformat";
import type { TokenRates } from "./rates";
import type { CacheAwareInputs, CachePriceRates } from "./types";

/**
 * The gap rule (docs/economics.md): a price a row lacks never becomes a
 * guess the gate fires on. A cache hit on a row with no cache-read price
 * would be priced at the input price, up to 10× the real one, which makes
 * carrying an output look dearer than it is and biases the gate toward
 * stubbing. So a cache-aware decision with q > 0 on such a row does not
 * fire (`pricing_incomplete`); a row that says its model has no prompt cache
 * (`prompt_cache: false`) is priced at q = 0 instead, where no read is
 * priced. Pure: no I/O, no clock.
 */

/** A price field a decision would have to guess. */
export type MissingPrice = NonNullable<TokenRates["missing"]>;

/**
 * The inputs a row prices: with `prompt_cache: false` every later turn is a
 * miss, so q and its range are 0; otherwise the inputs as they are.
 *
 * @example
 * cacheInputsFor({ ...inputs, cache_hit_rate: 0.9 }, { input: 1, output: 4, prompt_cache: false }).cache_hit_rate // 0
 */
export function cacheInputsFor(inputs: CacheAwareInputs, row: CachePriceRates): CacheAwareInputs {
  if (row.prompt_cache !== false) return inputs;
  const { cache_hit_rate_range: _range, ...rest } = inputs;
  return { ...rest, cache_hit_rate: 0 };
}

/**
 * The cache-read field a decision would have to guess, or null: none is
 * guessed when no q in play is above 0, nor when every request it prices
 * has a read price at the tier in force.
 *
 * @example
 * missingCachePrice([ratesAt({ input: 1.5, output: 9 }, 0)], 0.9) // "cache_read"
 * missingCachePrice([ratesAt({ input: 1.5, output: 9 }, 0)], 0) // null
 */
export function missingCachePrice(requests: readonly TokenRates[], qMax: number): MissingPrice | null {
  if (!(qMax > 0)) return null;
  for (const rates of requests) if (rates.missing !== undefined) return rates.missing;
  return null;
}

/**
 * The head of a `pricing_incomplete` reason: which field is missing and why
 * the gate does not fire; the priced terms follow it.
 *
 * @example
 * gapReason("cache_read", 0.9, "gemini-3.5-flash")
 * // "pricing incomplete: gemini-3.5-flash has no cache_read price and q=0.90 > 0, so a cache hit cannot be priced; ${verdict}. Terms with a hit at the input price: "
 */
export function gapReason(field: MissingPrice, q: number, model: string, verdict = "not fired"): string {
  const what =
    field === "cache_read"
      ? "no cache_read price"
      : "no long_context.cache_read price (nor a cache_read to fall back to)";
  return `pricing incomplete: ${model} has ${what} and q=${pyFixed(q, 2)} > 0, so a cache hit cannot be priced; ${verdict}. Terms with a hit at the input price: `;
}
