import type { ToolSessionRow } from "../model";
import type { SumsFilter } from "../shard";
import { emptySums, type LedgerSums, mergePairs, mergeSums, rowsOfPairs, type ToolPairList } from "../stats";
import { type LedgerNamespace, ledgerShard } from "./client";
import { beforeDeadline, TIMED_OUT } from "./deadline";

/**
 * The savings routes' and the learner's side of the ledger: sums and pairs
 * gathered from every shard, every call bounded by ledger_timeout_ms (the
 * reports' side is ./reports.ts).
 *
 * @module
 */

/**
 * A shard that did not answer within the budget.
 *
 * @example
 * new ShardTimeout(3, 5_000).message // "ledger shard 3 did not answer within 5000 ms"
 */
export class ShardTimeout extends Error {
  constructor(shard: number, ms: number) {
    super(`ledger shard ${shard} did not answer within ${ms} ms`);
  }
}

/**
 * The shard call's answer, or a ShardTimeout once `ms` have passed: no
 * ledger read waits longer than ledger_timeout_ms (docs/design/ledger.md §7).
 *
 * @example
 * await bounded(0, 5_000, () => ledgerShard(ns, "acme", 0).sums("acme", filter, 60_000));
 */
export async function bounded<T>(shard: number, ms: number, call: () => Promise<T>): Promise<T> {
  const answer = await beforeDeadline(call, ms);
  if (answer === TIMED_OUT) throw new ShardTimeout(shard, ms);
  return answer;
}

/** The shards a read asks: `0 … n − 1`, or a list (the written ones, ./written.ts). */
export type ShardSet = number | readonly number[];

/** Asks every shard of the set, each within the budget; the answers that came, and which did not. */
async function everyShard<T>(
  tenant: string,
  shards: ShardSet,
  timeoutMs: number,
  what: string,
  call: (shard: number) => Promise<T>,
) {
  const list = typeof shards === "number" ? Array.from({ length: shards }, (_, shard) => shard) : shards;
  const settled = await Promise.allSettled(list.map((shard) => bounded(shard, timeoutMs, () => call(shard))));
  const answers: T[] = [];
  const failed: number[] = [];
  for (const [i, result] of settled.entries()) {
    const shard = list[i]!;
    if (result.status === "fulfilled") answers.push(result.value);
    else {
      failed.push(shard);
      console.error(
        `offload-gate: ledger shard unavailable for ${what} (tenant ${tenant}):`,
        result.reason instanceof Error ? result.reason.message : result.reason,
      );
    }
  }
  return { answers, failed };
}

/**
 * Every shard's sums for one tenant, merged. A shard that cannot answer
 * within `timeoutMs` is counted, not fatal, so the report says how much of
 * the ledger it covers (`failed` names them).
 *
 * @example
 * const { sums, unavailable } = await gatherSums(env.LEDGER, "acme", 4, { from, to }, 3_600_000, 5_000);
 */
export async function gatherSums(
  namespace: LedgerNamespace,
  tenant: string,
  shards: ShardSet,
  filter: SumsFilter,
  bucketMs: number,
  timeoutMs: number,
): Promise<{ sums: LedgerSums; unavailable: number; failed: number[] }> {
  const { answers, failed } = await everyShard(tenant, shards, timeoutMs, "the savings report", (shard) =>
    ledgerShard(namespace, tenant, shard).sums(tenant, filter, bucketMs),
  );
  return { sums: answers.reduce(mergeSums, emptySums()), unavailable: failed.length, failed };
}

/**
 * Every shard's (session, tool) pairs for one tenant, packed per tool in
 * report order (../stats/pairs.ts), for the per-tool verdicts (../stats/verdicts.ts). A
 * shard that cannot answer within `timeoutMs` is counted in `unavailable`,
 * never waited on.
 *
 * @example
 * const { pairs, unavailable } = await gatherToolPairs(env.LEDGER, "acme", 4, { from, to }, 5_000);
 * toolVerdicts(pairs, config.holdout_fraction);
 */
export async function gatherToolPairs(
  namespace: LedgerNamespace,
  tenant: string,
  shards: ShardSet,
  filter: SumsFilter,
  timeoutMs: number,
): Promise<{ pairs: ToolPairList[]; unavailable: number; failed: number[] }> {
  const { answers, failed } = await everyShard(tenant, shards, timeoutMs, "the per-tool verdicts", (shard) =>
    ledgerShard(namespace, tenant, shard).toolPairs(tenant, filter),
  );
  return { pairs: mergePairs(answers), unavailable: failed.length, failed };
}

/**
 * The same pairs as rows (the breaker filters them by session).
 *
 * @example
 * const { rows } = await gatherToolSessions(env.LEDGER, "acme", 4, { from, to }, 5_000);
 */
export async function gatherToolSessions(
  namespace: LedgerNamespace,
  tenant: string,
  shards: ShardSet,
  filter: SumsFilter,
  timeoutMs: number,
): Promise<{ rows: ToolSessionRow[]; unavailable: number; failed: number[] }> {
  const { pairs, unavailable, failed } = await gatherToolPairs(namespace, tenant, shards, filter, timeoutMs);
  return { rows: rowsOfPairs(pairs), unavailable, failed };
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
  options: { shards: ShardSet; timeoutMs: number },
  ask: (shard: ReturnType<typeof ledgerShard>) => Promise<T[]>,
): Promise<{ rows: T[]; unavailable: number }> {
  const { answers, failed } = await everyShard(
    tenant,
    options.shards,
    options.timeoutMs,
    "the learning refresh",
    (shard) => ask(ledgerShard(namespace, tenant, shard)),
  );
  return { rows: answers.flat(), unavailable: failed.length };
}
