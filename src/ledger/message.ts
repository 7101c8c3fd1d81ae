import { z } from "@hono/zod-openapi";
import { CACHE_TTLS, OFFLOAD_AT, PRICING_MODES } from "../gate/constants";
import { DECISION_ID_PATTERN, shardOfDecisionId } from "./ids";
import type { LedgerDecision } from "./savings";

/**
 * One queued ledger write: a decision record with its tenant and the
 * retention in force when it was decided. The gate sends one message per
 * decision (./queue.ts); the consumer (./consumer.ts) groups them by tenant
 * and shard. JSON on the wire, so a dead letter reads as it was sent.
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
const TENANT_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
// zod's numbers are finite: NaN and ±Infinity are refused, as SQLite's REAL columns need.
const finite = z.number();
const nullableText = z.string().nullable();

// Every field the shard's insert binds, with the type its column takes: a
// message that passes is one the shard can store, so only a shard's own
// failure ever retries a group.
const DecisionSchema = z.object({
  decision_id: z.string().regex(DECISION_ID_PATTERN),
  at: z.number().int().nonnegative(),
  session_id: nullableText,
  tool_name: nullableText,
  model_name: z.string(),
  priced_as: nullableText,
  pricing_mode: z.enum(PRICING_MODES),
  reason_code: z.string(),
  fire: z.boolean(),
  would_fire: z.boolean(),
  holdout: z.boolean(),
  predicted_net_usd: finite,
  inputs: z.object({
    output_tokens: finite,
    horizon: finite,
    recall_probability: finite,
    cache_hit_rate: finite,
    context_tokens: finite.nullable(),
    stub_tokens: finite,
    recall_input_tokens: finite,
    recall_output_tokens: finite,
    offload_at: z.enum(OFFLOAD_AT).optional(),
    suffix_tokens: finite.optional(),
    cache_ttl: z.enum(CACHE_TTLS).optional(),
  }),
  // Stored as JSON, as the gate built them.
  row: z.record(z.string(), z.unknown()).nullable(),
  plan: z.record(z.string(), z.unknown()).optional(),
});

const MessageSchema = z.object({
  v: z.literal(1),
  tenant: z.string().regex(TENANT_PATTERN),
  retention_days: z.number().int().min(1).max(3_650),
  // Absent in messages from before ledger_raw_days: the shard keeps the raw window it has.
  raw_days: z.number().int().min(1).max(3_650).optional(),
  decision: DecisionSchema,
});

/** A queued message, read: the write it asks for, or why it cannot be stored. */
export type ParsedMessage = { ok: true; message: LedgerMessage; shard: number } | { ok: false; reason: string };

/**
 * Reads one queue message's body (pure). A malformed one is never stored
 * and never retried: retrying cannot fix it.
 *
 * @example
 * parseLedgerMessage({ v: 1, tenant: "acme", retention_days: 30, decision }) // { ok: true, message, shard: 3 }
 * parseLedgerMessage("x") // { ok: false, reason: "(root): ..." }
 */
export function parseLedgerMessage(body: unknown): ParsedMessage {
  const parsed = MessageSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
  }
  const message = parsed.data as LedgerMessage;
  return { ok: true, message, shard: shardOfDecisionId(message.decision.decision_id) ?? 0 };
}

/**
 * The message for one decision.
 *
 * @example
 * ledgerMessage("acme", record, 30, 2) // { v: 1, tenant: "acme", retention_days: 30, raw_days: 2, decision: record }
 */
export function ledgerMessage(tenant: string, decision: LedgerDecision, retentionDays: number, rawDays?: number): LedgerMessage {
  return rawDays === undefined ? { v: 1, tenant, retention_days: retentionDays, decision } : { v: 1, tenant, retention_days: retentionDays, raw_days: rawDays, decision };
}

/**
 * Splits messages into sendBatch calls within the limits (pure), and sets
 * aside any message too large to queue (the gate writes those directly).
 *
 * @example
 * chunkMessages([m1, m2]) // { batches: [[m1, m2]], oversized: [] }
 */
export function chunkMessages(messages: readonly LedgerMessage[], limits = QUEUE_LIMITS): { batches: LedgerMessage[][]; oversized: LedgerMessage[] } {
  const batches: LedgerMessage[][] = [];
  const oversized: LedgerMessage[] = [];
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
