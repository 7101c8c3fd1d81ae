import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ledgerShard, type PricedSession } from "../../src/ledger";
import { rowsOfPairs } from "../../src/ledger/stats/pairs";
import { decisionIdOf, seedDecision } from "../support/ledger-fixtures";

// Each test writes to its own tenant, so shards never share state across tests.
let tenants = 0;
const freshTenant = () => `shard-test-${++tenants}-${Date.now()}`;
const WINDOW = { from: 0, to: 4_000_000_000_000 };
const DAY = 86_400_000;

function session(over: Partial<PricedSession> = {}): PricedSession {
  const base = {
    session_id: "session-1",
    model_name: "claude-opus-4-6",
    priced_as: "claude-opus-4-6",
    turns: 10,
    usage: { input_tokens: 1_000, output_tokens: 500 },
    cost_usd: 0.0175,
  };
  const merged = { ...base, ...over };
  return { ...merged, report: JSON.stringify([merged.session_id, merged.model_name, merged.turns, merged.usage]) };
}

describe("a ledger shard", () => {
  it("accepts an outcome on its decision, and the same report again", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const decision = seedDecision();
    await shard.record(tenant, [decision], 30);
    const outcome = { decision_id: decision.decision_id, turns_after: 4, recalled: true, context_tokens: 150_000 };
    expect(await shard.reportOutcomes(tenant, Date.now(), [outcome])).toEqual([
      { status: "accepted", repeated: false },
    ]);
    expect(await shard.reportOutcomes(tenant, Date.now(), [outcome])).toEqual([{ status: "accepted", repeated: true }]);
  });

  it("answers conflict for a second report with different content, and keeps the first", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const decision = seedDecision();
    await shard.record(tenant, [decision], 30);
    const first = { decision_id: decision.decision_id, turns_after: 4, recalled: false };
    await shard.reportOutcomes(tenant, Date.now(), [first]);
    const [result] = await shard.reportOutcomes(tenant, Date.now(), [{ ...first, turns_after: 5 }]);
    expect(result?.status).toBe("conflict");
    const sums = await shard.sums(tenant, WINDOW, DAY);
    expect(sums.horizon).toEqual({ n: 1, sum: 4, sumsq: 16 });
  });

  it("answers unknown_decision for an id it never recorded, and invalid for an outcome its decision rules out", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const notFired = seedDecision({ fire: false, would_fire: false, reason_code: "net_not_positive" });
    await shard.record(tenant, [notFired], 30);
    const results = await shard.reportOutcomes(tenant, Date.now(), [
      { decision_id: decisionIdOf(0, 99), turns_after: 1, recalled: false },
      { decision_id: notFired.decision_id, turns_after: 1, recalled: true },
    ]);
    expect(results.map((r) => r.status)).toEqual(["unknown_decision", "invalid"]);
    expect(results[1]?.issues?.[0]?.path).toBe("recalled");
  });

  it("records a repeated decision id once", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await shard.record(tenant, [seedDecision()], 30);
    expect(await shard.record(tenant, [seedDecision({ predicted_net_usd: 99 })], 30)).toEqual({ recorded: 0 });
    expect((await shard.sums(tenant, WINDOW, DAY)).decisions).toBe(1);
  });

  it("belongs to the tenant that first wrote to it and shows nothing to any other", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    expect(await shard.record(tenant, [seedDecision()], 30)).toEqual({ recorded: 1 });
    expect(await shard.record("someone-else", [seedDecision({ decision_id: decisionIdOf(0, 7) })], 30)).toEqual({
      refused: "this ledger shard belongs to another tenant",
    });
    expect((await shard.sums("someone-else", WINDOW, DAY)).decisions).toBe(0);
    const outcome = { decision_id: seedDecision().decision_id, turns_after: 1, recalled: false };
    expect((await shard.reportOutcomes("someone-else", Date.now(), [outcome]))[0]?.status).toBe("unknown_decision");
    // Its own tenant still sees one decision and no outcome.
    expect(await shard.sums(tenant, WINDOW, DAY)).toMatchObject({ decisions: 1, outcomes: 0 });
  });

  it("sums predicted against realized net over fired decisions with outcomes", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const ids = [1, 2, 3].map((n) => decisionIdOf(0, n));
    await shard.record(
      tenant,
      [
        seedDecision({ decision_id: ids[0] }),
        seedDecision({ decision_id: ids[1] }),
        seedDecision({ decision_id: ids[2], fire: false, would_fire: true, holdout: true, reason_code: "holdout" }),
      ],
      30,
    );
    await shard.reportOutcomes(tenant, Date.now(), [
      { decision_id: ids[0] ?? "", turns_after: 4, recalled: true, context_tokens: 150_000 },
      { decision_id: ids[1] ?? "", turns_after: 4, recalled: false, context_tokens: 150_000, cached_turns: 2 },
    ]);
    const sums = await shard.sums(tenant, WINDOW, DAY);
    expect(sums).toMatchObject({
      decisions: 3,
      fired: 2,
      holdout_decisions: 1,
      outcomes: 2,
      fired_with_outcome: 2,
      recalled: 1,
    });
    expect(sums.predicted_net_usd).toBeCloseTo(2 * 0.230375, 12);
    expect(sums.prior_recall_sum).toBeCloseTo(0.5, 12);
    expect(sums.cache_hit_rate).toEqual({ n: 1, sum: 0.5, sumsq: 0.25 });
    expect(sums.series).toHaveLength(1);
    expect(sums.series[0]?.decisions).toBe(3);
  });

  it("filters its sums by window, tool and model", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await shard.record(
      tenant,
      [
        seedDecision({ decision_id: decisionIdOf(0, 1), at: 1_000, tool_name: "a" }),
        seedDecision({ decision_id: decisionIdOf(0, 2), at: 2_000, tool_name: "b" }),
        seedDecision({
          decision_id: decisionIdOf(0, 3),
          at: 3_000,
          tool_name: "b",
          model_name: "gpt-5",
          priced_as: "gpt-5",
        }),
      ],
      30,
    );
    expect((await shard.sums(tenant, { from: 1_500, to: 10_000 }, DAY)).decisions).toBe(2);
    expect((await shard.sums(tenant, { ...WINDOW, tool_name: "b" }, DAY)).decisions).toBe(2);
    expect((await shard.sums(tenant, { ...WINDOW, tool_name: "b", model: "gpt-5" }, DAY)).decisions).toBe(1);
  });

  it("counts missed savings: decisions that did not fire whose counterfactual was positive, the holdout's left out", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const missed = seedDecision({
      decision_id: decisionIdOf(0, 1),
      fire: false,
      would_fire: false,
      reason_code: "net_not_positive",
    });
    const held = seedDecision({ decision_id: decisionIdOf(0, 2), fire: false, holdout: true, reason_code: "holdout" });
    const loss = seedDecision({
      decision_id: decisionIdOf(0, 3),
      fire: false,
      would_fire: false,
      reason_code: "net_not_positive",
    });
    await shard.record(tenant, [missed, held, loss], 30);
    await shard.reportOutcomes(tenant, Date.now(), [
      { decision_id: missed.decision_id, turns_after: 10, recalled: false },
      { decision_id: held.decision_id, turns_after: 10, recalled: false },
      // One turn at 400,000 tokens of history: the recall hop would have cost more than the carry.
      { decision_id: loss.decision_id, turns_after: 1, recalled: false, context_tokens: 400_000 },
    ]);
    const sums = await shard.sums(tenant, WINDOW, DAY);
    expect(sums.missed_decisions).toBe(1);
    // Cache-aware at h 10, q 0.9, prior p 0.25, P 0: 11,800 carried tokens minus the expected recall hop.
    expect(sums.missed_savings_usd).toBeCloseTo(11_800 * (6.25e-6 + 9 * 1.075e-6) - 0.25 * 0.025, 12);
  });

  it("keeps a cache-aware decision's placement and cache write, and prices its outcome with them", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const decision = seedDecision({
      pricing_mode: "cache_aware",
      inputs: { ...seedDecision().inputs, context_tokens: 0, cache_ttl: "1h" },
    });
    await shard.record(tenant, [decision], 30);
    await shard.reportOutcomes(tenant, Date.now(), [
      { decision_id: decision.decision_id, turns_after: 4, recalled: false, cached_turns: 4 },
    ]);
    const sums = await shard.sums(tenant, WINDOW, DAY);
    expect(sums.realized_net_usd).toBeCloseTo(11_800 * (10e-6 + 3 * 0.5e-6), 12);
  });

  it("upgrades a shard written under the first schema, keeping its rows", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await shard.record(tenant, [seedDecision()], 30);
    // Roll the shard back to schema 1, as an older worker left it, then start it again.
    await runInDurableObject(shard, (_instance, state) => {
      state.storage.sql.exec("ALTER TABLE decisions DROP COLUMN offload_at");
      state.storage.sql.exec("ALTER TABLE decisions DROP COLUMN suffix_tokens");
      state.storage.sql.exec("ALTER TABLE decisions DROP COLUMN cache_ttl");
      state.storage.sql.exec("ALTER TABLE decisions DROP COLUMN plan");
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'schema_version'");
    });
    await evictDurableObject(shard);
    expect(
      await shard.record(
        tenant,
        [seedDecision({ decision_id: decisionIdOf(0, 5), inputs: { ...seedDecision().inputs, cache_ttl: "1h" } })],
        30,
      ),
    ).toEqual({
      recorded: 1,
    });
    expect((await shard.sums(tenant, WINDOW, DAY)).decisions).toBe(2);
  });

  it("buckets its series by the width asked for", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await shard.record(
      tenant,
      [1_000, 59_999, 61_000].map((at, n) => seedDecision({ decision_id: decisionIdOf(0, n), at })),
      30,
    );
    const { series } = await shard.sums(tenant, WINDOW, 60_000);
    expect(series.map((b) => [b.start, b.decisions])).toEqual([
      [0, 2],
      [60_000, 1],
    ]);
  });

  it("joins a session's bill to its tool's arm, as its decisions were answered, and is idempotent on it", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await shard.record(
      tenant,
      [seedDecision({ session_id: "held", holdout: true, fire: false, reason_code: "holdout" })],
      30,
    );
    const results = await shard.reportSessions(
      tenant,
      Date.now(),
      [session({ session_id: "held" }), session({ session_id: "plain" })],
      30,
    );
    expect(results.map((r) => r.status)).toEqual(["accepted", "accepted"]);
    const again = await shard.reportSessions(
      tenant,
      Date.now(),
      [session({ session_id: "plain" }), session({ session_id: "plain", turns: 11 })],
      30,
    );
    expect(again).toEqual([{ status: "accepted", repeated: true }, expect.objectContaining({ status: "conflict" })]);
    const sums = await shard.sums(tenant, WINDOW, DAY);
    expect(sums.sessions.n).toBe(2);
    expect(rowsOfPairs(await shard.toolPairs(tenant, WINDOW))).toEqual([
      expect.objectContaining({ session_id: "held", tool_name: "web.fetch", treated: false }),
    ]);
  });

  it("purges decisions, their outcomes and sessions past the retention when its alarm runs", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const now = Date.now();
    const old = seedDecision({ decision_id: decisionIdOf(0, 1), at: now - 31 * DAY });
    const recent = seedDecision({ decision_id: decisionIdOf(0, 2), at: now - 29 * DAY });
    await shard.record(tenant, [old, recent], 30);
    await shard.reportOutcomes(tenant, now, [
      { decision_id: old.decision_id, turns_after: 1, recalled: false },
      { decision_id: recent.decision_id, turns_after: 1, recalled: false },
    ]);
    await shard.reportSessions(tenant, now - 40 * DAY, [session({ session_id: "old" })], 30);
    await shard.reportSessions(tenant, now, [session({ session_id: "new" })], 30);

    expect(await runDurableObjectAlarm(shard)).toBe(true);
    const counts = await runInDurableObject(shard, (_instance, state) =>
      Object.fromEntries(
        ["decisions", "outcomes", "sessions", "price_rows"].map((table) => [
          table,
          Number(state.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n),
        ]),
      ),
    );
    expect(counts).toEqual({ decisions: 1, outcomes: 1, sessions: 1, price_rows: 1 });
    // Something is left, so the sweep comes back.
    expect(await runInDurableObject(shard, (_instance, state) => state.storage.getAlarm())).not.toBeNull();
  });

  it("keeps the retention the last write gave it", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const now = Date.now();
    await shard.record(tenant, [seedDecision({ decision_id: decisionIdOf(0, 1), at: now - 3 * DAY })], 2);
    await runDurableObjectAlarm(shard);
    expect((await shard.sums(tenant, WINDOW, DAY)).decisions).toBe(0);
    // Nothing left: no sweep is scheduled.
    expect(await runInDurableObject(shard, (_instance, state) => state.storage.getAlarm())).toBeNull();
  });
});
