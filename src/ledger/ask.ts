import { ledgerShard, type LedgerNamespace } from "./client";
import { shardFor, shardOfDecisionId } from "./ids";
import { emptySums, mergeSums, type LedgerSums } from "./report";
import type { OutcomeReport } from "./savings";
import type { SumsFilter } from "./sql";
import type { ItemResult, PricedSession, ToolSessionRow } from "./types";

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

/** A shard that did not answer within the budget. */
export class ShardTimeout extends Error {
  constructor(shard: number, ms: number) {
    super(`ledger shard ${shard} did not answer within ${ms} ms`);
  }
}

/**
 * The shard call's answer, or a ShardTimeout once `ms` have passed: no
 * ledger read waits longer than ledger_timeout_ms (ledger-v2.md §5).
 *
 * @example
 * await bounded(0, 5_000, () => ledgerShard(ns, "acme", 0).sums("acme", filter, 60_000));
 */
export async function bounded<T>(shard: number, ms: number, call: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new ShardTimeout(shard, ms)), ms)));
  // A native promise: an RPC promise reads `.catch` as a remote property.
  const answer = Promise.resolve().then(call);
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asks every shard of a tenant, each within the budget; the answers that came, and how many did not. */
async function everyShard<T>(tenant: string, shards: number, timeoutMs: number, what: string, call: (shard: number) => Promise<T>) {
  const settled = await Promise.allSettled(Array.from({ length: shards }, (_, shard) => bounded(shard, timeoutMs, () => call(shard))));
  const answers: T[] = [];
  let unavailable = 0;
  for (const result of settled) {
    if (result.status === "fulfilled") answers.push(result.value);
    else {
      unavailable++;
      console.error(`offload-gate: ledger shard unavailable for ${what} (tenant ${tenant}):`, result.reason instanceof Error ? result.reason.message : result.reason);
    }
  }
  return { answers, unavailable };
}

/**
 * Every shard's sums for one tenant, merged. A shard that cannot answer
 * within `timeoutMs` is counted, not fatal, so the report says how much of
 * the ledger it covers.
 *
 * @example
 * const { sums, unavailable } = await gatherSums(env.LEDGER, "acme", 4, { from, to }, 3_600_000, 5_000);
 */
export async function gatherSums(
  namespace: LedgerNamespace,
  tenant: string,
  shards: number,
  filter: SumsFilter,
  bucketMs: number,
  timeoutMs: number,
): Promise<{ sums: LedgerSums; unavailable: number }> {
  const { answers, unavailable } = await everyShard(tenant, shards, timeoutMs, "the savings report", (shard) =>
    ledgerShard(namespace, tenant, shard).sums(tenant, filter, bucketMs),
  );
  return { sums: answers.reduce(mergeSums, emptySums()), unavailable };
}

/**
 * Every shard's (session, tool) pairs for one tenant, for the per-tool
 * verdicts (./verdicts.ts). A shard that cannot answer within `timeoutMs`
 * is counted in `unavailable`, never waited on.
 *
 * @example
 * const { rows, unavailable } = await gatherToolSessions(env.LEDGER, "acme", 4, { from, to }, 5_000);
 * toolVerdicts(rows, config.holdout_fraction);
 */
export async function gatherToolSessions(
  namespace: LedgerNamespace,
  tenant: string,
  shards: number,
  filter: SumsFilter,
  timeoutMs: number,
): Promise<{ rows: ToolSessionRow[]; unavailable: number }> {
  const { answers, unavailable } = await everyShard(tenant, shards, timeoutMs, "the per-tool verdicts", (shard) =>
    ledgerShard(namespace, tenant, shard).toolSessions(tenant, filter),
  );
  return { rows: answers.flat(), unavailable };
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
  const { answers, unavailable } = await everyShard(tenant, options.shards, options.timeoutMs, "the learning refresh", (shard) =>
    ask(ledgerShard(namespace, tenant, shard)),
  );
  return { rows: answers.flat(), unavailable };
}
