/**
 * KV listings (every key under a prefix, with its value) held by the
 * isolate like the rows are, so that a page anyone can open costs at most
 * one list() and a few bulk reads per isolate per TTL, however often it is
 * viewed: anonymous traffic cannot spend the KV quota the gate lives on.
 */
import { RefreshingCache, type CachePolicy, type CacheRead } from "./cache";
import { listValues } from "./list";

type WaitUntil = (promise: Promise<unknown>) => void;

/** A listing pages through many keys: it may take longer than one row's read. */
export const LISTING_BUDGET_MS = 3_000;

const listings = new RefreshingCache<ReadonlyMap<string, string>>({ maxEntries: 8 });

/**
 * Every key under `prefix` with its value, from the isolate when it holds a
 * fresh copy (TTL and staleness as `policy` sets them for rows), waiting
 * at most `budgetMs` (the gate passes its own KV budget).
 *
 * @example
 * const read = await readListing(env.PRICING, PRICING_PREFIX, cachePolicy(config), waitUntil);
 * if (read.kind !== "miss") read.value.get("gpt-5");
 */
export function readListing(
  kv: KVNamespace,
  prefix: string,
  policy: CachePolicy,
  waitUntil: WaitUntil,
  budgetMs = Math.max(policy.budgetMs, LISTING_BUDGET_MS),
): Promise<CacheRead<ReadonlyMap<string, string>>> {
  const listingPolicy = { ...policy, budgetMs };
  return listings.read(prefix, () => listValues(kv, prefix), listingPolicy, waitUntil);
}

/** Drops every held listing: this isolate just wrote a row or alias, so its console shows the write. */
export function forgetListings(): void {
  listings.clear();
}
