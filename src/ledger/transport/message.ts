import type { LedgerDecision } from "../model";

/**
 * One queued ledger write: a decision record with its tenant and the
 * retention in force when it was decided. The gate sends one message per
 * decision (./queue.ts); the consumer (./consumer.ts) groups them by tenant
 * and shard. JSON on the wire, so a dead letter reads as it was sent. The
 * consumer reads a message with ./message-schema.ts, which the gate's
 * startup leaves out.
 */
export interface LedgerMessage {
  /** The format's version: a consumer acks and logs a version it does not know. */
  v: 1;
  tenant: string;
  retention_days: number;
  /** `ledger_raw_days` when the decision was made; absent in messages from before it existed. */
  raw_days?: number;
  decision: LedgerDecision;
}

/**
 * Cloudflare Queues' limits: a message's body is at most 128 KB, and one
 * sendBatch at most 100 messages and 256 KB in all. A decision is about
 * 0.7 KB; a plan with its 512 segments at most about 90 KB.
 */
export const QUEUE_LIMITS = { messageBytes: 128_000, batchMessages: 100, batchBytes: 256_000 } as const;

const encoder = new TextEncoder();
/**
 * The message for one decision.
 *
 * @example
 * ledgerMessage("acme", record, 30, 2) // { v: 1, tenant: "acme", retention_days: 30, raw_days: 2, decision: record }
 */
export function ledgerMessage(
  tenant: string,
  decision: LedgerDecision,
  retentionDays: number,
  rawDays?: number,
): LedgerMessage {
  return rawDays === undefined
    ? { v: 1, tenant, retention_days: retentionDays, decision }
    : { v: 1, tenant, retention_days: retentionDays, raw_days: rawDays, decision };
}

/**
 * Splits messages into sendBatch calls within the limits (pure), and sets
 * aside any message too large to queue (the gate writes those directly).
 *
 * @example
 * chunkMessages([m1, m2]) // { batches: [[m1, m2]], oversized: [] }
 */
export function chunkMessages(
  messages: readonly LedgerMessage[],
  limits: { messageBytes: number; batchMessages: number; batchBytes: number } = QUEUE_LIMITS,
): { batches: LedgerMessage[][]; oversized: LedgerMessage[] } {
  const batches: LedgerMessage[][] = [];
  const oversized: LedgerMessage[] = [];
  // A single gate decision (no plan) is a few KB at most: one message, one batch, nothing to measure.
  if (messages.length === 1 && messages[0]?.decision.plan === undefined)
    return { batches: [[...messages]], oversized: [] };
  let current: LedgerMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = encoder.encode(JSON.stringify(message)).length;
    if (size > limits.messageBytes) {
      oversized.push(message);
      continue;
    }
    if (current.length === limits.batchMessages || bytes + size > limits.batchBytes) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(message);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return { batches, oversized };
}
