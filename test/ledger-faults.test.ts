import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ledgerFailures, ledgerShard, writeDecisions } from "../src/ledger/client";
import { decisionIdOf, seedDecision } from "./ledger-fixtures";

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
    const decisions = [seedDecision({ decision_id: decisionIdOf(0, 1) }), seedDecision({ decision_id: decisionIdOf(2, 2) })];
    await writeDecisions(env.LEDGER, tenant, decisions, { retentionDays: 30, timeoutMs: 5_000 });
    const window = { from: 0, to: 4_000_000_000_000 };
    expect((await ledgerShard(env.LEDGER, tenant, 0).sums(tenant, window, 86_400_000)).decisions).toBe(1);
    expect((await ledgerShard(env.LEDGER, tenant, 1).sums(tenant, window, 86_400_000)).decisions).toBe(0);
    expect((await ledgerShard(env.LEDGER, tenant, 2).sums(tenant, window, 86_400_000)).decisions).toBe(1);
  });

  it("counts and logs a shard that throws, and resolves anyway", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const before = ledgerFailures.errors;
    await expect(
      writeDecisions(env.LEDGER_THROWING, "t", [seedDecision()], { retentionDays: 30, timeoutMs: 5_000 }),
    ).resolves.toBeUndefined();
    expect(ledgerFailures.errors).toBe(before + 1);
    expect(log).toHaveBeenCalledWith(expect.stringContaining("ledger write failed"), "ledger storage is broken (test)");
  });

  it("counts and logs a shard that hangs past the budget, and resolves at the budget", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const before = ledgerFailures.timeouts;
    const started = Date.now();
    await writeDecisions(hangingAsLedger, "probe-tenant", [seedDecision()], { retentionDays: 30, timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(ledgerFailures.timeouts).toBe(before + 1);
    expect(log).toHaveBeenCalledWith(expect.stringContaining("timed out after 50 ms"));
  });

  it("counts a missing binding as a failure rather than throwing", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const before = ledgerFailures.errors;
    await writeDecisions(undefined, "t", [seedDecision()], { retentionDays: 30, timeoutMs: 50 });
    expect(ledgerFailures.errors).toBe(before + 1);
  });
});
