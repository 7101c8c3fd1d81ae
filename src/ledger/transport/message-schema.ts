import { z } from "@hono/zod-openapi";
import { CACHE_TTLS, OFFLOAD_AT, PRICING_MODES, RECALL_PLACEMENTS } from "../../gate";
import { DECISION_ID_PATTERN, shardOfDecisionId } from "../model";
import type { LedgerMessage } from "./message";

// How the consumer reads a queued message (./message.ts says what one is).

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
    // Absent in messages from before it was carried, and for every appended decision.
    recall_placement: z.enum(RECALL_PLACEMENTS).optional(),
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
