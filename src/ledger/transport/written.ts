/**
 * Which of a tenant's ledger shards were ever written: a KV key per shard
 * (`ledger-shard:<tenant>:<shard>`, docs/storage.md), put beside the first
 * write of that shard from each isolate, so the reads (the savings report,
 * the learning refresh) ask only those shards and a tenant that never wrote
 * instantiates no object at all, however its name was made up.
 *
 * Written is forever (a shard's rows only age out), so the isolate holds
 * every shard it has seen written and asks KV only about the others. A KV
 * fault on a read counts the shard as written: a fault may cost a read, it
 * never hides a shard's rows. A marker that could not be put is tried again
 * on the shard's next write.
 *
 * @module
 */
import { ledgerShardKey } from "../../storage/rules";

// `<tenant>/<shard>`, as the object is named: the shards this isolate knows were written.
const known = new Set<string>();
const MAX_KNOWN = 65_536;
// How long a "not written" answer may be served from KV's edge cache: a new shard shows within a minute.
const UNWRITTEN_CACHE_SECONDS = 60;

const remember = (name: string) => {
  if (known.size >= MAX_KNOWN) known.delete(known.values().next().value as string);
  known.add(name);
};

/**
 * Marks a shard as written, once per isolate. Never rejects: a failed put
 * is logged and tried again next time.
 *
 * @example
 * await markWritten(env.PRICING, "acme", 3);
 */
export async function markWritten(kv: KVNamespace | undefined, tenant: string, shard: number): Promise<void> {
  const name = `${tenant}/${shard}`;
  if (kv === undefined || known.has(name)) return;
  try {
    await kv.put(ledgerShardKey(tenant, shard), "1");
    remember(name);
  } catch (error) {
    console.warn(
      `offload-gate: could not mark ledger shard ${name} as written:`,
      error instanceof Error ? error.message : error,
    );
  }
}

/**
 * The shards among `0 … shards − 1` a tenant ever wrote, in order: the
 * only ones a read needs to ask. Without a KV binding, every shard.
 *
 * @example
 * await writtenShards(env.PRICING, "never-wrote", 4) // []
 * await writtenShards(env.PRICING, "acme", 4)        // [0, 2, 3]
 */
export async function writtenShards(kv: KVNamespace | undefined, tenant: string, shards: number): Promise<number[]> {
  const all = Array.from({ length: shards }, (_, shard) => shard);
  if (kv === undefined) return all;
  const written = await Promise.all(
    all.map(async (shard) => {
      const name = `${tenant}/${shard}`;
      if (known.has(name)) return true;
      try {
        const held = (await kv.get(ledgerShardKey(tenant, shard), { cacheTtl: UNWRITTEN_CACHE_SECONDS })) !== null;
        if (held) remember(name);
        return held;
      } catch (error) {
        console.warn(
          `offload-gate: could not read whether ledger shard ${name} was written; asking it:`,
          error instanceof Error ? error.message : error,
        );
        return true;
      }
    }),
  );
  return all.filter((shard) => written[shard]);
}

/** Forgets which shards this isolate saw written (tests that empty KV and the objects). */
export function forgetWrittenShards(): void {
  known.clear();
}
