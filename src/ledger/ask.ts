import { ledgerShard, type LedgerNamespace } from "./client";
import { shardFor, shardOfDecisionId } from "./ids";
import { emptySums, mergeSums, type LedgerSums } from "./report";
import type { OutcomeReport } from "./savings";
import type { SumsFilter } from "./sql";
import type { ItemResult, PricedSession } from "./types";

/**
 * The report and savings routes' side of the ledger: items sent to the
 * shards that own them, answers put back in item order, sums gathered from
 * every shard. A shard that fails makes the whole call throw (the route
 * answers 503): every report is idempotent, so a retry is safe.
 */

/** An item and where it sits in the request. */
export interface Indexed<T> {
  index: number;
  item: T;
}

async function byShard<T>(
  items: readonly Indexed<T>[],
  shardOf: (item: T) => number,
  ask: (shard: number, items: T[]) => Promise<ItemResult[]>,
): Promise<Map<number, ItemResult>> {
  const groups = new Map<number, Indexed<T>[]>();
  for (const entry of items) {
    const shard = shardOf(entry.item);
    const group = groups.get(shard);
    if (group === undefined) groups.set(shard, [entry]);
    else group.push(entry);
  }
  const answers = new Map<number, ItemResult>();
  await Promise.all(
    [...groups].map(async ([shard, group]) => {
      const results = await ask(shard, group.map((entry) => entry.item));
      group.forEach((entry, i) => answers.set(entry.index, results[i] ?? { status: "invalid", message: "no answer from the ledger" }));
    }),
  );
  return answers;
}

/**
 * Outcomes to the shards their decision ids name, in the caller's own
 * ledger: an id of another tenant's decision finds nothing there.
 *
 * @example
 * const results = await reportOutcomes(env.LEDGER, "acme", Date.now(), [{ index: 0, item: outcome }]);
 */
export function reportOutcomes(namespace: LedgerNamespace, tenant: string, at: number, items: readonly Indexed<OutcomeReport>[]) {
  return byShard(items, (item) => shardOfDecisionId(item.decision_id) ?? 0, (shard, list) =>
    ledgerShard(namespace, tenant, shard).reportOutcomes(tenant, at, list),
  );
}

/**
 * Session bills to the shard of their session, where its decisions are.
 *
 * @example
 * await reportSessions(env.LEDGER, "acme", Date.now(), { shards: 4, retentionDays: 30 }, [{ index: 0, item: priced }]);
 */
export function reportSessions(
  namespace: LedgerNamespace,
  tenant: string,
  at: number,
  options: { shards: number; retentionDays: number },
  items: readonly Indexed<PricedSession>[],
) {
  const none = new Uint8Array(16);
  return byShard(items, (item) => shardFor(tenant, item.session_id, options.shards, none), (shard, list) =>
    ledgerShard(namespace, tenant, shard).reportSessions(tenant, at, list, options.retentionDays),
  );
}

/**
 * Every shard's sums for one tenant, merged. A shard that cannot answer is
 * counted, not fatal, so the report says how much of the ledger it covers.
 *
 * @example
 * const { sums, unavailable } = await gatherSums(env.LEDGER, "acme", 4, { from, to }, 3_600_000);
 */
export async function gatherSums(
  namespace: LedgerNamespace,
  tenant: string,
  shards: number,
  filter: SumsFilter,
  bucketMs: number,
): Promise<{ sums: LedgerSums; unavailable: number }> {
  const settled = await Promise.allSettled(
    Array.from({ length: shards }, (_, shard) => ledgerShard(namespace, tenant, shard).sums(tenant, filter, bucketMs)),
  );
  let sums = emptySums();
  let unavailable = 0;
  for (const result of settled) {
    if (result.status === "fulfilled") sums = mergeSums(sums, result.value);
    else {
      unavailable++;
      console.error(`offload-gate: ledger shard unavailable for the savings report (tenant ${tenant}):`, result.reason);
    }
  }
  return { sums, unavailable };
}

/**
 * Rows from every shard of one tenant, each shard's read bounded by
 * `timeoutMs`, with how many shards could not answer (the learning refresh
 * publishes nothing partial).
 *
 * @example
 * const { rows, unavailable } = await gatherRows(env.LEDGER, "acme", { shards: 4, timeoutMs: 5_000 }, (s) => s.learningSums("acme", from, to));
 */
export async function gatherRows<T>(
  namespace: LedgerNamespace,
  tenant: string,
  options: { shards: number; timeoutMs: number },
  ask: (shard: ReturnType<typeof ledgerShard>) => Promise<T[]>,
): Promise<{ rows: T[]; unavailable: number }> {
  const settled = await Promise.allSettled(
    Array.from({ length: options.shards }, (_, shard) => withinMs(ask(ledgerShard(namespace, tenant, shard)), options.timeoutMs)),
  );
  const rows: T[] = [];
  let unavailable = 0;
  for (const result of settled) {
    if (result.status === "fulfilled") rows.push(...result.value);
    else {
      unavailable++;
      console.error(`offload-gate: ledger shard unavailable for the learning refresh (tenant ${tenant}):`, result.reason);
    }
  }
  return { rows, unavailable };
}

/** A ledger read bounded by `ms`: past it the shard counts as unavailable, never a hang. */
async function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
