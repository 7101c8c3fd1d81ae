import { DECISION_ID_RANDOM_BYTES, formatDecisionId, shardFor, shardOfDecisionId } from "./ids";
import type { LedgerDecision } from "./savings";

/**
 * The worker's side of the ledger: ids drawn from crypto, the stub of a
 * tenant's shard, and the gate's write, which never fails or slows a
 * decision. The only module that draws randomness for the ledger.
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

/**
 * A new decision id: the session's shard (every decision of a session in
 * one place), or a random one for a decision without a session.
 *
 * @example
 * newDecisionId("acme", "session-1", 8) // "dec_5_3f9a…" (shard 5 for every decision of session-1)
 */
export function newDecisionId(tenant: string, sessionId: string | null, shards: number): string {
  const random = crypto.getRandomValues(new Uint8Array(DECISION_ID_RANDOM_BYTES));
  return formatDecisionId(shardFor(tenant, sessionId, shards, random), random);
}

/** Ledger writes that failed in this isolate, by kind; each is also logged. */
export const ledgerFailures = { errors: 0, timeouts: 0 };

/** How long an isolate gathers a shard's decisions before writing them in one call. */
export const LEDGER_FLUSH_MS = 10;
/** The most decisions one write carries: a batch this full is written at once. */
export const LEDGER_MAX_BATCH = 200;

type WriteOptions = { retentionDays: number; timeoutMs: number };

/** Decisions on their way to one shard, and the write that will carry them. */
interface Batch {
  decisions: LedgerDecision[];
  flush: () => void;
  done: Promise<void>;
}

// Per namespace (tests bind several), then per "<tenant>/<shard>".
const batches = new WeakMap<LedgerNamespace, Map<string, Batch>>();

/**
 * Hands decisions to their shards and resolves when their writes have
 * succeeded, failed or run past `timeoutMs`. Decisions of concurrent
 * requests for one shard are gathered for LEDGER_FLUSH_MS and written in
 * one call, so a shard takes a batch rather than one call per gate request.
 * It never rejects: a failure is counted in `ledgerFailures` and logged.
 * Call it in waitUntil, never before answering.
 *
 * @example
 * c.executionCtx.waitUntil(writeDecisions(env.LEDGER, "acme", records, { retentionDays: 30, timeoutMs: 5_000 }));
 */
export async function writeDecisions(
  namespace: LedgerNamespace | undefined,
  tenant: string,
  decisions: readonly LedgerDecision[],
  options: WriteOptions,
): Promise<void> {
  if (decisions.length === 0) return;
  const byShard = new Map<number, LedgerDecision[]>();
  for (const decision of decisions) {
    const shard = shardOfDecisionId(decision.decision_id) ?? 0;
    const list = byShard.get(shard);
    if (list === undefined) byShard.set(shard, [decision]);
    else list.push(decision);
  }
  if (namespace === undefined) {
    ledgerFailures.errors++;
    console.error(`offload-gate: ledger write failed (tenant ${tenant}, ${decisions.length} decisions): the LEDGER binding is missing`);
    return;
  }
  await Promise.all([...byShard].map(([shard, list]) => enqueue(namespace, tenant, shard, list, options)));
}

function enqueue(namespace: LedgerNamespace, tenant: string, shard: number, list: LedgerDecision[], options: WriteOptions): Promise<void> {
  let open = batches.get(namespace);
  if (open === undefined) batches.set(namespace, (open = new Map()));
  const key = `${tenant}/${shard}`;
  let batch = open.get(key);
  if (batch === undefined) {
    const pending = open;
    let release!: () => void;
    const ready = new Promise<void>((resolve) => (release = resolve));
    const timer = setTimeout(release, LEDGER_FLUSH_MS);
    const created: Batch = {
      decisions: [],
      flush: () => {
        clearTimeout(timer);
        release();
      },
      done: ready.then(() => {
        // Later decisions start a new batch from here on.
        if (pending.get(key) === created) pending.delete(key);
        return writeShard(namespace, tenant, shard, created.decisions, options);
      }),
    };
    open.set(key, (batch = created));
  }
  batch.decisions.push(...list);
  if (batch.decisions.length >= LEDGER_MAX_BATCH) {
    open.delete(key);
    batch.flush();
  }
  return batch.done;
}

/** One write to one shard, raced against the timeout; a failure is counted and logged, never thrown. */
async function writeShard(namespace: LedgerNamespace, tenant: string, shard: number, list: LedgerDecision[], options: WriteOptions) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), options.timeoutMs)));
  try {
    // A native promise: an RPC promise reads `.catch` as a remote property.
    const write = ledgerShard(namespace, tenant, shard)
      .record(tenant, list, options.retentionDays)
      .then((result) => result);
    // A write that fails after its timeout was already counted as one.
    write.catch(() => undefined);
    const result = await Promise.race([write, timeout]);
    if (result === "timeout") {
      ledgerFailures.timeouts++;
      console.error(`offload-gate: ledger write timed out after ${options.timeoutMs} ms (tenant ${tenant}, shard ${shard}, ${list.length} decisions)`);
    } else if ("refused" in result) {
      throw new Error(result.refused);
    }
  } catch (error) {
    ledgerFailures.errors++;
    console.error(`offload-gate: ledger write failed (tenant ${tenant}, shard ${shard}, ${list.length} decisions):`, error instanceof Error ? error.message : error);
  } finally {
    clearTimeout(timer);
  }
}
