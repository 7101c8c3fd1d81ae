/**
 * KV listings (every key under a prefix, with its value) held by the
 * isolate like the rows are, so that a page anyone can open costs at most
 * one list() and a few bulk reads per isolate per TTL, however often it is
 * viewed: anonymous traffic cannot spend the KV quota the gate lives on.
 */
import { type CachePolicy, type CacheRead, RefreshingCache } from "./cache";

/** Keys per bulk read: KV's limit for one get() of many keys. */
const BULK_READ = 100;

/**
 * Every key under `prefix` with its value, keyed by the name after the
 * prefix: pages through list() until list_complete, then reads values
 * 100 keys at a time. A key deleted between the two is left out. The admin
 * list and the console both read KV through it.
 *
 * @example
 * const rows = await listValues(env.PRICING, PRICING_PREFIX); // Map { "gpt-5" => '{"input":1.25,...}' }
 */
export async function listValues(kv: KVNamespace, prefix: string): Promise<Map<string, string>> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list(cursor === undefined ? { prefix } : { prefix, cursor });
    names.push(...page.keys.map((key) => key.name));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  const values = new Map<string, string>();
  for (let start = 0; start < names.length; start += BULK_READ) {
    const batch = await kv.get(names.slice(start, start + BULK_READ), "text");
    for (const [name, text] of batch) if (text !== null) values.set(name.slice(prefix.length), text);
  }
  return values;
}

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
