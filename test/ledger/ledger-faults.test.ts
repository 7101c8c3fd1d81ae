import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ledgerShard } from "../../src/ledger";
import { writeDecisions } from "../../src/ledger/transport/client";
import worker from "../../src/index";
import { OPUS, putRow, resetState } from "../support/helpers";
import { decisionIdOf, linesLogged, seedDecision } from "../support/ledger-fixtures";

const hanging = env.LEDGER_HANGING;
const hangingAsLedger = hanging as unknown as Env["LEDGER"];
const holder = () => hanging.get(hanging.idFromName("probe"));

// The first call to a Durable Object in a file starts its runtime: not what these tests time.
beforeAll(async () => {
  await ledgerShard(env.LEDGER, "warm-up", 0).sums("warm-up", { from: 0, to: 1 }, 60_000);
  await holder().waiting();
}, 30_000);

afterEach(async () => {
  await holder().release();
  vi.restoreAllMocks();
});

describe("the gate's ledger write", () => {
  it("stores the decisions in their shards through the real binding", async () => {
    const tenant = `write-${Date.now()}`;
    const decisions = [
      seedDecision({ decision_id: decisionIdOf(0, 1) }),
      seedDecision({ decision_id: decisionIdOf(2, 2) }),
    ];
    await writeDecisions(env.LEDGER, tenant, decisions, { retentionDays: 30, timeoutMs: 5_000 });
    const window = { from: 0, to: 4_000_000_000_000 };
    expect((await ledgerShard(env.LEDGER, tenant, 0).sums(tenant, window, 86_400_000)).decisions).toBe(1);
    expect((await ledgerShard(env.LEDGER, tenant, 1).sums(tenant, window, 86_400_000)).decisions).toBe(0);
    expect((await ledgerShard(env.LEDGER, tenant, 2).sums(tenant, window, 86_400_000)).decisions).toBe(1);
  });

  it("logs a shard that throws once, and resolves anyway", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expect(
      writeDecisions(env.LEDGER_THROWING, "t", [seedDecision()], { retentionDays: 30, timeoutMs: 5_000 }),
    ).resolves.toBeUndefined();
    expect(linesLogged(log, "ledger write failed")).toEqual([
      "offload-gate: ledger write failed (tenant t, shard 0, 1 decisions):",
    ]);
    expect(log).toHaveBeenCalledWith(expect.stringContaining("ledger write failed"), "ledger storage is broken (test)");
  });

  it("logs a shard that hangs past the budget once, and resolves at the budget", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const started = Date.now();
    await writeDecisions(hangingAsLedger, "probe-tenant", [seedDecision()], { retentionDays: 30, timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(log.mock.calls).toEqual([
      ["offload-gate: ledger write timed out after 50 ms (tenant probe-tenant, shard 0, 1 decisions)"],
    ]);
  });

  it("says once per isolate that there is no binding, writing nothing and never throwing", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    await expect(
      writeDecisions(undefined, "t", [seedDecision()], { retentionDays: 30, timeoutMs: 50 }),
    ).resolves.toBeUndefined();
    // No earlier test in this file writes without a binding, so this isolate has not said it yet.
    expect(linesLogged(log, "no LEDGER binding")).toHaveLength(1);
    await writeDecisions(undefined, "t", [seedDecision()], { retentionDays: 30, timeoutMs: 50 });
    expect(log).toHaveBeenCalledTimes(1);
  });
});

describe("a failing or slow ledger never changes the gate's answer, nor makes it wait", () => {
  const REQUEST = {
    model_name: "claude-opus-4-6",
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.3,
    session_id: "conv-f",
  };
  const withoutId = ({ decision_id: _id, ...rest }: Record<string, unknown>) => rest;

  async function gateWith(ledger: Env["LEDGER"], config: Record<string, unknown> = {}) {
    await resetState();
    await putRow("claude-opus-4-6", OPUS);
    await env.PRICING.put("config:gate", JSON.stringify(config));
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://gate.test/v1/gate/batch", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ items: [REQUEST, { ...REQUEST, output_tokens: 500 }] }),
      }),
      { ...env, LEDGER: ledger } as Env,
      ctx,
    );
    const body = await res.json<{ decisions: Record<string, unknown>[] }>();
    return { status: res.status, decisions: body.decisions.map(withoutId), ctx };
  }

  it("answers exactly as with a working ledger when every write throws, and logs the failure", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const working = await gateWith(env.LEDGER);
    await waitOnExecutionContext(working.ctx);
    expect(log).not.toHaveBeenCalled();
    const broken = await gateWith(env.LEDGER_THROWING);
    await waitOnExecutionContext(broken.ctx);
    expect(broken.status).toBe(200);
    expect(broken.decisions).toEqual(working.decisions);
    // One write per shard the batch touched: a session's decisions share one.
    expect(linesLogged(log, "ledger write failed")).toHaveLength(1);
  });

  it("answers before a hanging write finishes, exactly as with a working ledger", async () => {
    const working = await gateWith(env.LEDGER);
    await waitOnExecutionContext(working.ctx);
    const slow = await gateWith(hangingAsLedger, { ledger_timeout_ms: 30_000 });
    // The answer is in hand while the ledger still holds the write.
    expect(await holder().waiting()).toBe(1);
    expect(slow.status).toBe(200);
    expect(slow.decisions).toEqual(working.decisions);
    await holder().release();
    await waitOnExecutionContext(slow.ctx);
  });

  it("logs a write that hangs past ledger_timeout_ms as timed out", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const slow = await gateWith(hangingAsLedger, { ledger_timeout_ms: 20 });
    await waitOnExecutionContext(slow.ctx);
    expect(linesLogged(log, "ledger write timed out after 20 ms")).toHaveLength(1);
  });
});
