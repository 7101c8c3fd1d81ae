import type { ItemResult, OutcomeReport, PricedSession } from "../model";
import { shardFor, shardOfDecisionId } from "../model";
import { bounded } from "./ask";
import { type LedgerNamespace, ledgerShard } from "./client";
import { markWritten, writtenShards } from "./written";

/**
 * The report routes' side of the ledger: items sent to the shards that own
 * them, answers put back in item order, every call bounded by
 * ledger_timeout_ms. A report shard that fails or does not answer in time
 * makes the whole call throw (the route answers 503): every report is
 * idempotent, so a retry is safe.
 *
 * @module
 */

/** An item and where it sits in the request. */
export interface Indexed<T> {
  index: number;
  item: T;
}

async function byShard<T>(
  items: readonly Indexed<T>[],
  shardOf: (item: T) => number,
  timeoutMs: number,
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
      const results = await bounded(shard, timeoutMs, () =>
        ask(
          shard,
          group.map((entry) => entry.item),
        ),
      );
      group.forEach((entry, i) =>
        answers.set(entry.index, results[i] ?? { status: "invalid", message: "no answer from the ledger" }),
      );
    }),
  );
  return answers;
}

/** Where the reports go: the configured shard count and the budget of every call; the raw window the shards keep (ledger_raw_days). */
export interface ReportOptions {
  shards: number;
  timeoutMs: number;
  rawDays?: number;
}

const UNKNOWN: ItemResult = { status: "unknown_decision", message: "no decision of this tenant has this id" };

/**
 * Outcomes to the shards their decision ids name, in the caller's own
 * ledger: an id of another tenant's decision finds nothing there, and an id
 * naming a shard at or beyond the configured count is unknown_decision
 * without touching an object. The ids in `pendable` (authentic, in the raw
 * window: the route checked their tags) may wait in their shard as pending
 * outcomes when their decision has not arrived yet.
 *
 * @example
 * const results = await reportOutcomes(env.LEDGER, "acme", Date.now(), { shards: 4, timeoutMs: 5_000 }, [{ index: 0, item: outcome }]);
 */
export async function reportOutcomes(
  namespace: LedgerNamespace,
  tenant: string,
  at: number,
  options: ReportOptions,
  items: readonly Indexed<OutcomeReport>[],
  pendable: ReadonlySet<string> = new Set(),
) {
  const inRange = (item: OutcomeReport) => {
    const shard = shardOfDecisionId(item.decision_id);
    return shard !== null && shard < options.shards;
  };
  const answers = await byShard(
    items.filter((entry) => inRange(entry.item)),
    (item) => shardOfDecisionId(item.decision_id) ?? 0,
    options.timeoutMs,
    (shard, list) =>
      ledgerShard(namespace, tenant, shard).reportOutcomes(
        tenant,
        at,
        list,
        options.rawDays,
        list.filter((item) => pendable.has(item.decision_id)).map((item) => item.decision_id),
      ),
  );
  for (const entry of items) if (!inRange(entry.item)) answers.set(entry.index, UNKNOWN);
  return answers;
}

/**
 * Where each session of a report goes: the shard that already holds its
 * bill, else one that holds its decisions, else its hash's under today's
 * shard count. Raising ledger_shards moves the hash, not what is stored, so
 * a retried bill meets its first copy and is a repeat, not a second bill.
 * Only the shards the tenant ever wrote are asked (./written.ts), as the
 * reads ask them: one never written holds nothing, and asking it would
 * create its object (a new tenant's first report asks none).
 */
async function homesOf(
  namespace: LedgerNamespace,
  tenant: string,
  options: ReportOptions & { index?: KVNamespace },
  ids: string[],
): Promise<Map<string, number>> {
  const homes = new Map<string, number>();
  if (options.shards <= 1 || ids.length === 0) return homes;
  const written = await writtenShards(options.index, tenant, options.shards);
  const found = await Promise.all(
    written.map((shard) =>
      bounded(shard, options.timeoutMs, () => ledgerShard(namespace, tenant, shard).locateSessions(tenant, ids)),
    ),
  );
  ids.forEach((id, i) => {
    let best = 0;
    found.forEach((answer, k) => {
      const where = answer[i] ?? 0;
      if (where > best) {
        best = where;
        homes.set(id, written[k]!);
      }
    });
  });
  return homes;
}

/**
 * Session bills to the shard of their session, where its decisions are.
 *
 * @example
 * await reportSessions(env.LEDGER, "acme", Date.now(), { shards: 4, timeoutMs: 5_000, retentionDays: 30 }, [{ index: 0, item: priced }]);
 */
export async function reportSessions(
  namespace: LedgerNamespace,
  tenant: string,
  at: number,
  options: ReportOptions & { retentionDays: number; index?: KVNamespace },
  items: readonly Indexed<PricedSession>[],
) {
  const none = new Uint8Array(16);
  const homes = await homesOf(namespace, tenant, options, [...new Set(items.map((entry) => entry.item.session_id))]);
  const shardOf = (item: PricedSession) =>
    homes.get(item.session_id) ?? shardFor(tenant, item.session_id, options.shards, none);
  return byShard(items, shardOf, options.timeoutMs, async (shard, list) => {
    // A bill is a write like a decision: marked first, so the savings report asks its shard.
    await markWritten(options.index, tenant, shard);
    return ledgerShard(namespace, tenant, shard).reportSessions(
      tenant,
      at,
      list,
      options.retentionDays,
      options.rawDays,
    );
  });
}
