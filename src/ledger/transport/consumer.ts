import type { LedgerDecision } from "../model";
import { recordInShard } from "./client";
import type { LedgerMessage } from "./message";
import { parseLedgerMessage } from "./message-schema";

/**
 * The LEDGER_QUEUE consumer: the worker's `queue` handler (src/index.ts)
 * calls it with each batch. It groups the batch's decisions by tenant and
 * shard and stores each group with one shard call, so one call carries up
 * to a whole batch instead of one decision. A shard ignores a decision id it
 * already holds, so a redelivered batch stores nothing twice.
 */

/** How long one group's shard call may take before its messages are retried. Off the hot path: generous. */
export const CONSUMER_WRITE_TIMEOUT_MS = 15_000;

/**
 * What the consumer did with one batch, logged as one JSON line per batch for
 * Workers Logs (docs/operations.md § Dead letters of the ledger queue): decisions `stored`,
 * decisions a shard already held (`repeated`), messages `retried`, messages
 * acked unread (`malformed`).
 */
interface BatchOutcome {
  stored: number;
  repeated: number;
  retried: number;
  malformed: number;
}

interface Group {
  tenant: string;
  shard: number;
  retentionDays: number;
  rawDays: number | undefined;
  messages: Message<unknown>[];
  decisions: LedgerDecision[];
}

/**
 * Writes one batch (of LEDGER_QUEUE, or of its dead-letter queue when an
 * operator attaches the worker to it: the same writes, docs/operations.md
 * § Dead letters of the ledger queue). A group whose shard call fails or times out is retried
 * by the queue, its messages alone; every other message is acked. A
 * message that cannot be read is acked and logged: retrying cannot fix it.
 * Last, one `ledger_batch` line logs what the batch came to.
 *
 * @example
 * async queue(batch, env) { await consumeLedgerBatch(batch, env); }
 */
export async function consumeLedgerBatch(
  batch: MessageBatch<unknown>,
  env: { LEDGER?: Env["LEDGER"]; PRICING?: KVNamespace },
): Promise<void> {
  const outcome: BatchOutcome = { stored: 0, repeated: 0, retried: 0, malformed: 0 };
  const groups = groupMessages(batch, outcome);
  const namespace = env.LEDGER;
  await Promise.all(
    [...groups.values()].map(async (group) => {
      const result =
        namespace === undefined
          ? {
              ok: false as const,
              message: "offload-gate: no LEDGER binding for the ledger queue's consumer",
              detail: "",
            }
          : await recordInShard(namespace, group.tenant, group.shard, group.decisions, {
              retentionDays: group.retentionDays,
              rawDays: group.rawDays,
              timeoutMs: CONSUMER_WRITE_TIMEOUT_MS,
              index: env.PRICING,
            });
      if (result.ok) {
        outcome.stored += result.recorded;
        outcome.repeated += group.decisions.length - result.recorded;
        for (const message of group.messages) message.ack();
        return;
      }
      outcome.retried += group.messages.length;
      console.error(
        `${result.message} (queue ${batch.queue}); retrying its ${group.messages.length} messages`,
        result.detail,
      );
      for (const message of group.messages) message.retry();
    }),
  );
  console.log(
    JSON.stringify({ event: "ledger_batch", queue: batch.queue, messages: batch.messages.length, ...outcome }),
  );
}

/** The batch's readable messages by tenant and shard; the others are acked, logged and counted in `outcome` here. */
function groupMessages(batch: MessageBatch<unknown>, outcome: BatchOutcome): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const message of batch.messages) {
    const parsed = parseLedgerMessage(message.body);
    if (!parsed.ok) {
      outcome.malformed++;
      console.error(
        `offload-gate: malformed ledger message ${message.id} (queue ${batch.queue}) acked, not stored: ${parsed.reason}`,
      );
      message.ack();
      continue;
    }
    const body: LedgerMessage = parsed.message;
    const key = `${body.tenant}/${parsed.shard}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        tenant: body.tenant,
        shard: parsed.shard,
        retentionDays: body.retention_days,
        rawDays: body.raw_days,
        messages: [],
        decisions: [],
      };
      groups.set(key, group);
    }
    // The latest message's retention and raw window, as a direct write brings the config in force.
    group.retentionDays = body.retention_days;
    group.rawDays = body.raw_days ?? group.rawDays;
    group.messages.push(message);
    group.decisions.push(body.decision);
  }
  return groups;
}
