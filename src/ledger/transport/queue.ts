import type { LedgerDecision } from "../model";
import { type LedgerNamespace, type LedgerWriteOptions, writeDecisions } from "./client";
import { beforeDeadline, TIMED_OUT } from "./deadline";
import { chunkMessages, type LedgerMessage, ledgerMessage } from "./message";

/**
 * The gate's hand-over of its decision records: to the LEDGER_QUEUE when
 * it is bound (the consumer, ./consumer.ts, writes them to their shards in
 * batches), else straight to the shards (./client.ts), as without a queue.
 */

/** The bindings the hand-over reads: the queue is optional, as a deployment may not bind it. */
export interface LedgerBindings {
  LEDGER?: LedgerNamespace;
  /** Where the written shards are recorded (./written.ts). */
  PRICING?: KVNamespace;
  LEDGER_QUEUE?: Pick<Queue, "send" | "sendBatch">;
}

/**
 * Sends decisions to the queue, one message each (one sendBatch per 100
 * messages or 256 KB), or writes them directly without a queue. A send that
 * throws or runs past `timeoutMs` is logged, and its records are
 * written directly: a decision id is stored once however often it arrives,
 * so a send that did get through stores nothing twice. Never rejects; call
 * it in waitUntil.
 *
 * @example
 * c.executionCtx.waitUntil(handDecisions(env, "acme", records, { retentionDays: 30, timeoutMs: 5_000 }));
 */
export async function handDecisions(
  env: LedgerBindings,
  tenant: string,
  decisions: readonly LedgerDecision[],
  options: LedgerWriteOptions,
): Promise<void> {
  const queue = env.LEDGER_QUEUE;
  options = { index: env.PRICING, ...options };
  if (queue === undefined || decisions.length === 0) return writeDecisions(env.LEDGER, tenant, decisions, options);
  const { batches, oversized } = chunkMessages(
    decisions.map((decision) => ledgerMessage(tenant, decision, options.retentionDays, options.rawDays)),
  );
  const unsent = await Promise.all(batches.map((batch) => send(queue, batch, options.timeoutMs)));
  const direct = [...oversized, ...unsent.flat()].map((message) => message.decision);
  if (direct.length > 0) await writeDecisions(env.LEDGER, tenant, direct, options);
}

/** Sends one batch; answers the messages it could not send. */
async function send(
  queue: NonNullable<LedgerBindings["LEDGER_QUEUE"]>,
  batch: LedgerMessage[],
  timeoutMs: number,
): Promise<LedgerMessage[]> {
  try {
    // One message needs no batch.
    const sent = await beforeDeadline(
      () =>
        batch.length === 1
          ? queue.send(batch[0], { contentType: "json" })
          : queue.sendBatch(batch.map((body) => ({ body, contentType: "json" as const }))),
      timeoutMs,
    );
    if (sent !== TIMED_OUT) return [];
    console.error(
      `offload-gate: ledger queue send timed out after ${timeoutMs} ms (${batch.length} decisions); writing them directly`,
    );
  } catch (error) {
    console.error(
      `offload-gate: ledger queue send failed (${batch.length} decisions); writing them directly:`,
      error instanceof Error ? error.message : error,
    );
  }
  return batch;
}
