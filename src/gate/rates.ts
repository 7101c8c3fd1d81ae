import { TOKENS_PER_MILLION } from "./constants";
import type { CachePriceRates, CacheTtl, TierPrices } from "./types";

/**
 * Per-token rates of one request, and what one carried token costs over the
 * turns it is carried (docs/economics.md). Shared by the cache-aware gate,
 * its break-evens and the clearing plan. Pure: no I/O, no clock.
 */

/** Per-token rates (USD) of one request, after tier selection, TTL and fallbacks. */
export interface TokenRates {
  in: number;
  out: number;
  read: number;
  /** The cache write at the request's TTL: 5-minute, or 1-hour. */
  write: number;
  /** Whether the long-context tier priced this request. */
  tiered: boolean;
  /**
   * Set when no cache-read price applies (neither the tier in force nor the
   * row has one): `read` is then the input price, a guess the gate does not
   * fire on (the gap rule, docs/economics.md). Names the missing field.
   */
  missing?: "cache_read" | "long_context.cache_read";
  /** Set when the request is below the row's min_cache_prefix_tokens: nothing of it is cached. */
  uncached?: true;
}

/**
 * The rates of a request whose input is `inputTokens`: the row's
 * long-context tier when the input exceeds its threshold (every token of the
 * request, as Anthropic bills), the base prices otherwise. A price the tier
 * leaves out falls back to the base price; a missing cache price falls back
 * to the input price of the tier in force, never 0 (a missing read is
 * flagged in `missing`: the gate does not fire on it when q > 0). With `ttl` "1h" the
 * write is `cache_write_1h` (the tier's, then the row's), else the resolved
 * 5-minute write (a provider without a write premium has no 1-hour price).
 *
 * @example
 * ratesAt({ input: 3, output: 15, long_context: { threshold_tokens: 200_000, input: 6 } }, 210_000)
 * // { in: 6e-6, out: 15e-6, read: 6e-6, write: 6e-6, tiered: true }
 * ratesAt({ input: 5, output: 25, cache_read: 0.5, cache_write: 6.25, cache_write_1h: 10 }, 0, "1h").write // 10e-6
 */
export function ratesAt(
  row: CachePriceRates,
  inputTokens: number,
  ttl: CacheTtl = "5m",
  belowFloorUncached = true,
): TokenRates {
  // A prefix shorter than the model's minimum is never cached (docs/design/economics.md §11):
  // every token of it pays the input price, read or written. A recorded bill passes false, as its
  // counts already say what the provider cached.
  if (belowFloorUncached && belowCacheFloor(row, inputTokens)) return uncached(ratesAt(row, inputTokens, ttl, false));
  const tier = row.long_context;
  if (tier === undefined || !(inputTokens > tier.threshold_tokens)) return resolve(row, undefined, ttl);
  return resolve(row, tier, ttl);
}

/**
 * Whether a request of `inputTokens` is below the row's `min_cache_prefix_tokens`, so that the
 * provider caches none of it.
 *
 * @example
 * belowCacheFloor({ input: 5, output: 25, min_cache_prefix_tokens: 4_096 }, 3_500) // true
 */
export function belowCacheFloor(row: CachePriceRates, inputTokens: number): boolean {
  return row.min_cache_prefix_tokens !== undefined && inputTokens < row.min_cache_prefix_tokens;
}

// The same rates with nothing cached: a read and a write both cost the input price.
function uncached(rates: TokenRates): TokenRates {
  return { in: rates.in, out: rates.out, read: rates.in, write: rates.in, tiered: rates.tiered, uncached: true };
}

function resolve(row: CachePriceRates, tier: TierPrices | undefined, ttl: CacheTtl): TokenRates {
  // Divide exactly as the reference does, so an untiered row reduces to it bit for bit.
  const input = tier?.input ?? row.input ?? 0;
  const write5m = tier?.cache_write ?? row.cache_write ?? input;
  const write = ttl === "1h" ? (tier?.cache_write_1h ?? row.cache_write_1h ?? write5m) : write5m;
  const read = tier?.cache_read ?? row.cache_read;
  const rates: TokenRates = {
    in: input / TOKENS_PER_MILLION,
    out: (tier?.output ?? row.output ?? 0) / TOKENS_PER_MILLION,
    read: (read ?? input) / TOKENS_PER_MILLION,
    write: write / TOKENS_PER_MILLION,
    tiered: tier !== undefined,
  };
  if (read === undefined) rates.missing = tier === undefined ? "cache_read" : "long_context.cache_read";
  return rates;
}

/**
 * m(R): the expected cost of one later turn of an already-written token. A
 * hit reads it, a miss writes it again: q·read + (1 − q)·write, computed as
 * write + q·(read − write) so that it is exactly `write` when read = write.
 *
 * @example
 * laterTurnRate({ in: 5e-6, out: 25e-6, read: 0.5e-6, write: 6.25e-6, tiered: false }, 0.9) // ≈ 1.075e-6
 */
export function laterTurnRate(rates: TokenRates, q: number): number {
  return rates.write + q * (rates.read - rates.write);
}

/**
 * carry(R, h) per token: 0 when h = 0, else written on the first turn and
 * m(R) on each of the other h − 1.
 *
 * @example
 * carryRate(opusRates, laterTurnRate(opusRates, 0.9), 4) // ≈ 9.475e-6 (6.25e-6 + 3 · 1.075e-6)
 */
export function carryRate(rates: TokenRates, m: number, h: number): number {
  if (h === 0) return 0;
  return rates.write + (h - 1) * m;
}

/**
 * tokens · carry(R, h). When a later turn costs what the first does
 * (read = write, or q = 0), that is tokens · write · h, done in the
 * reference's order so the cache-aware gate reduces to the seed bit for bit.
 *
 * @example
 * carryCost(20_000, opusRates, laterTurnRate(opusRates, 0.9), 4) // ≈ 0.1895 (20,000 · 9.475e-6)
 */
export function carryCost(tokens: number, rates: TokenRates, m: number, h: number): number {
  if (h === 0) return 0;
  if (m === rates.write) return tokens * rates.write * h;
  return tokens * (rates.write + (h - 1) * m);
}
