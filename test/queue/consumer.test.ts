import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ledgerMessage, ledgerShard } from "../../src/ledger";
import worker from "../../src/index";
import { decisionIdOf, linesLogged, seedDecision } from "../support/ledger-fixtures";

const QUEUE = "offload-gate-ledger-dev";
let tenantCount = 0;
const newTenant = (name: string) => `${name}-${Date.now()}-${tenantCount++}`;

/** A batch as the queue delivers it: one message per decision, as the gate sends them. */
function batchOf(bodies: unknown[], queue = QUEUE) {
  return createMessageBatch(
    queue,
    bodies.map((body, i) => ({ id: `msg-${i}`, timestamp: new Date(1_800_000_000_000), attempts: 1, body })),
  );
}

/**
 * Runs the worker's own queue handler on a batch; answers what it acked and
 * retried, and the `ledger_batch` lines it logged for Workers Logs, parsed.
 */
async function consume(batch: MessageBatch) {
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  log.mockClear();
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  const logged = linesLogged(log, '"event":"ledger_batch"').map((line) => JSON.parse(line) as unknown);
  return { ...(await getQueueResult(batch, ctx)), logged };
}

/** The one line the consumer logs for a batch of `queue`. */
const batchLine = (
  counts: { messages: number; stored: number; repeated: number; retried: number; malformed: number },
  queue = QUEUE,
) => ({
  event: "ledger_batch",
  queue,
  ...counts,
});

const held = async (tenant: string, shard: number) =>
  (await ledgerShard(env.LEDGER, tenant, shard).storage()).decisions;
const messages = (tenant: string, shard: number, ns: number[]) =>
  ns.map((n) => ledgerMessage(tenant, seedDecision({ decision_id: decisionIdOf(shard, n) }), 30));

afterEach(() => vi.restoreAllMocks());

describe("the ledger queue's consumer", () => {
  it("stores a batch's decisions in their tenants' shards and acks every message", async () => {
    const [a, b] = [newTenant("acme"), newTenant("beta")];
    const batch = batchOf([...messages(a, 0, [1, 2, 3]), ...messages(a, 2, [4]), ...messages(b, 0, [5, 6])]);
    const result = await consume(batch);
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks.sort()).toEqual(batch.messages.map((m) => m.id).sort());
    expect([await held(a, 0), await held(a, 1), await held(a, 2), await held(b, 0)]).toEqual([3, 0, 1, 2]);
    expect(result.logged).toEqual([batchLine({ messages: 6, stored: 6, repeated: 0, retried: 0, malformed: 0 })]);
  });

  it("stores nothing twice when the same batch is delivered again", async () => {
    const tenant = newTenant("redelivered");
    const bodies = messages(tenant, 1, [1, 2, 3, 4]);
    await consume(batchOf(bodies));
    const again = await consume(batchOf(bodies));
    expect(again.explicitAcks).toHaveLength(4);
    expect(await held(tenant, 1)).toBe(4);
    expect(again.logged).toEqual([batchLine({ messages: 4, stored: 0, repeated: 4, retried: 0, malformed: 0 })]);
  });

  it("retries only the messages of a group whose shard call fails, and acks the others", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const tenant = newTenant("split");
    // The object named "<tenant>/1" already belongs to another tenant, so it refuses this tenant's writes.
    await ledgerShard(env.LEDGER, tenant, 1).record(
      "someone-else",
      [seedDecision({ decision_id: decisionIdOf(1, 99) })],
      30,
    );
    const batch = batchOf([
      ...messages(tenant, 0, [1, 2]),
      ...messages(tenant, 1, [3, 4]),
      ...messages(tenant, 2, [5]),
    ]);
    const result = await consume(batch);
    expect(result.retryMessages.map((m) => m.msgId).sort()).toEqual(["msg-2", "msg-3"]);
    expect(result.explicitAcks.sort()).toEqual(["msg-0", "msg-1", "msg-4"]);
    expect(result.ackAll).toBe(false);
    expect([await held(tenant, 0), await held(tenant, 2)]).toEqual([2, 1]);
    expect(result.logged).toEqual([batchLine({ messages: 5, stored: 3, repeated: 0, retried: 2, malformed: 0 })]);
    expect(log).toHaveBeenCalledWith(
      expect.stringContaining(`ledger write failed (tenant ${tenant}, shard 1, 2 decisions)`),
      "this ledger shard belongs to another tenant",
    );
  });

  it("acks and logs a malformed message without storing it, and stores the rest of its batch", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const tenant = newTenant("poison");
    const [good] = messages(tenant, 0, [1]);
    const bad = [
      "not an object",
      { ...good, v: 2 },
      { ...good, tenant: "no/slash" },
      { ...good, decision: { ...good!.decision, decision_id: "dec_x" } },
      { ...good, decision: { ...good!.decision, inputs: { ...good!.decision.inputs, horizon: "4" } } },
    ];
    const result = await consume(batchOf([good, ...bad]));
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toHaveLength(6);
    expect(await held(tenant, 0)).toBe(1);
    expect(result.logged).toEqual([batchLine({ messages: 6, stored: 1, repeated: 0, retried: 0, malformed: 5 })]);
    expect(linesLogged(log, "malformed ledger message")).toHaveLength(5);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/malformed ledger message msg-5 .*inputs\.horizon/));
  });

  it("redrives a dead-letter batch into the shards the same way, once", async () => {
    const tenant = newTenant("dead-letters");
    const bodies = messages(tenant, 3, [1, 2]);
    const result = await consume(batchOf(bodies, `${QUEUE}-dlq`));
    expect(result.explicitAcks).toHaveLength(2);
    expect(result.logged).toEqual([
      batchLine({ messages: 2, stored: 2, repeated: 0, retried: 0, malformed: 0 }, `${QUEUE}-dlq`),
    ]);
    // The original delivery succeeding late (or a second drain) adds nothing.
    await consume(batchOf(bodies));
    expect(await held(tenant, 3)).toBe(2);
  });

  it("brings each message's ledger_raw_days to its shard, as a direct write does", async () => {
    const tenant = newTenant("raw-window");
    const bodies = [1, 2].map((n) => ledgerMessage(tenant, seedDecision({ decision_id: decisionIdOf(0, n) }), 30, 3));
    expect((await consume(batchOf(bodies))).retryMessages).toEqual([]);
    const kept = await runInDurableObject(ledgerShard(env.LEDGER, tenant, 0), (_instance, state) =>
      state.storage.sql
        .exec("SELECT value FROM meta WHERE key = 'raw_days'")
        .toArray()
        .map((row) => Number(row.value)),
    );
    expect(kept).toEqual([3]);
  });
});
