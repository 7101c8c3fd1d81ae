import { CACHE_TTL_SECONDS, CACHE_TTLS, PROVIDER_CACHE_TTLS } from "./constants";
import type { CachePriceRates, CacheTtl } from "./types";

/**
 * Which cache TTLs a model offers, and its default (docs/design/economics.md §5.1): the row's own
 * `cache_ttls`, else its provider's, else any TTL with "5m" first. Pure: no I/O, no clock.
 */

type TtlRow = Pick<CachePriceRates, "provider" | "cache_ttls">;

/**
 * The TTLs a row offers, its default first; null when it says nothing (any TTL, "5m" by default).
 *
 * @example
 * offeredCacheTtls({ provider: "openai" }) // ["in_memory", "24h"]
 * offeredCacheTtls({ provider: "anthropic", cache_ttls: ["5m"] }) // ["5m"]
 * offeredCacheTtls({}) // null
 */
export function offeredCacheTtls(row: TtlRow): readonly CacheTtl[] | null {
  if (row.cache_ttls !== undefined && row.cache_ttls.length > 0) return row.cache_ttls;
  return (row.provider === undefined ? undefined : PROVIDER_CACHE_TTLS[row.provider]) ?? null;
}

/**
 * The TTL a request that names none is priced at: the row's first.
 *
 * @example
 * defaultCacheTtl({ provider: "google" }) // "implicit"
 * defaultCacheTtl({}) // "5m"
 */
export function defaultCacheTtl(row: TtlRow): CacheTtl {
  return offeredCacheTtls(row)?.[0] ?? CACHE_TTLS[0];
}

/**
 * Why a row cannot be priced at `ttl`, or null when it can: the message of the 400 naming `cache_ttl`.
 *
 * @example
 * cacheTtlRefusal({ provider: "openai" }, "1h", "gpt-5") // 'is not offered for gpt-5, which offers "in_memory" or "24h"'
 */
export function cacheTtlRefusal(row: TtlRow, ttl: CacheTtl, model: string): string | null {
  const offered = offeredCacheTtls(row);
  if (offered === null || offered.includes(ttl)) return null;
  return `is not offered for ${model}, which offers ${offered.map((t) => `"${t}"`).join(" or ")}`;
}

/**
 * How long a cached prefix stays after its last use under `ttl` (the row's default when omitted),
 * in seconds: what replay expires a session's cache by.
 *
 * @example
 * cacheTtlSeconds({ provider: "openai" }) // 300: in memory
 * cacheTtlSeconds({ provider: "openai" }, "24h") // 86,400
 * cacheTtlSeconds({}, "1h") // 3,600
 */
export function cacheTtlSeconds(row: TtlRow, ttl?: CacheTtl): number {
  return CACHE_TTL_SECONDS[ttl ?? defaultCacheTtl(row)];
}
