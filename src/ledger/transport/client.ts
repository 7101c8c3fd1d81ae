import type { LedgerDecision } from "../model";
import { shardOfDecisionId } from "../model";
import { beforeDeadline, TIMED_OUT } from "./deadline";
import { markWritten } from "./written";

/**
 * The worker's side of the ledger: the stub of a tenant's shard, and the
 * gate's write, which never fails or slows a decision. Ids are drawn in
 * ../model/assign.ts.
 */

/** The ledger's Durable Object namespace, however a caller's env names its type. */
export type LedgerNamespace = Env["LEDGER"];

/**
 * The shard `shard` of `tenant`'s ledger. Tenant names never hold a "/"
 * (`[A-Za-z0-9._-]`), so every (tenant, shard) names its own object.
 *
 * @example
 * await ledgerShard(env.LEDGER, "acme", 3).sums("acme", filter, 3_600_000);
 */
export function ledgerShard(namespace: LedgerNamespace, tenant: string, shard: number) {
  return namespace.get(namespace.idFromName(`${tenant}/${shard}`));
}

/** Whether this isolate has said that the LEDGER binding is missing: said once, not on every write. */
let unboundLogged = false;

/**
 * Hands decisions to their shards, one call per shard, and resolves when
 * every call has succeeded, failed or run past `timeoutMs`. It never
 * rejects: each failure is logged (docs/operations.md). Call it in
 * waitUntil, never before answering.
 *
 * @example
 * c.executionCtx.waitUntil(writeDecisions(env.LEDGER, "acme", records, { retentionDays: 30, timeoutMs: 5_000 }));
 */
export async function writeDecisions(
  namespace: LedgerNamespace | undefined,
  tenant: string,
  decisions: readonly LedgerDecision[],
  options: LedgerWriteOptions,
): Promise<void> {
  if (decisions.length === 0) return;
  if (namespace === undefined) {
    // A deployment without the binding: said once per isolate, not on every write.
    if (!unboundLogged) {
      unboundLogged = true;
      console.error("offload-gate: no LEDGER binding; decisions are not recorded in the outcomes ledger");
    }
    return;
  }
  const byShard = new Map<number, LedgerDecision[]>();
  for (const decision of decisions) {
    const shard = shardOfDecisionId(decision.decision_id) ?? 0;
    const list = byShard.get(shard);
    if (list === undefined) byShard.set(shard, [decision]);
    else list.push(decision);
  }
  await Promise.all(
    [...byShard].map(async ([shard, list]) => {
      const result = await recordInShard(namespace, tenant, shard, list, options);
      if (result.ok) return;
      if (result.timedOut) console.error(result.message);
      else console.error(`${result.message}:`, result.detail);
    }),
  );
}

/** How a write keeps what it stores: `ledger_retention_days`, `ledger_raw_days` (the shard keeps its last when absent), and how long to wait. */
export interface LedgerWriteOptions {
  retentionDays: number;
  rawDays?: number;
  timeoutMs: number;
  /** The KV that records which shards were written (./written.ts); none marks nothing. */
  index?: KVNamespace;
}

/** One shard call's result: how many decisions it stored, or why it did not answer in time or failed. */
export type ShardWrite =
  | { ok: true; recorded: number }
  | { ok: false; timedOut: boolean; message: string; detail: string };

/**
 * Stores decisions of one shard with one call, waiting at most `timeoutMs`.
 * Never rejects: a refusal, a throw and a timeout are each a result.
 *
 * @example
 * await recordInShard(env.LEDGER, "acme", 3, decisions, { retentionDays: 30, timeoutMs: 5_000 }) // { ok: true, recorded: 2 }
 */
export async function recordInShard(
  namespace: LedgerNamespace,
  tenant: string,
  shard: number,
  decisions: LedgerDecision[],
  options: LedgerWriteOptions,
): Promise<ShardWrite> {
  const where = `tenant ${tenant}, shard ${shard}, ${decisions.length} decisions`;
  try {
    // Marked beside the write, never delaying it (a failed mark is tried again on the next write).
    const result = await beforeDeadline<{ recorded: number } | { refused: string }>(async () => {
      const [, written] = await Promise.all([
        markWritten(options.index, tenant, shard),
        ledgerShard(namespace, tenant, shard).record(tenant, decisions, options.retentionDays, options.rawDays),
      ]);
      return written;
    }, options.timeoutMs);
    if (result === TIMED_OUT)
      return {
        ok: false,
        timedOut: true,
        message: `offload-gate: ledger write timed out after ${options.timeoutMs} ms (${where})`,
        detail: "",
      };
    if ("refused" in result) throw new Error(result.refused);
    return { ok: true, recorded: result.recorded };
  } catch (error) {
    return {
      ok: false,
      timedOut: false,
      message: `offload-gate: ledger write failed (${where})`,
      detail: error instanceof Error ? error.message : String(error),
    };
  }
}
