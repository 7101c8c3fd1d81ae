import { evictDurableObject, reset, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { cacheAwareTerms, type RecallPlacement } from "../../src/gate";
import { ledgerShard, shardOfDecisionId } from "../../src/ledger";
import { MIGRATIONS } from "../../src/ledger/shard/migrations";
import { WORKED_EXAMPLE_CLEARING } from "../../src/routes/plan/context-schema";
import { WORKED_EXAMPLE_P1 } from "../../src/routes/plan/schema";
import { forgetPricing } from "../../src/storage/read";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// A decision's recall_placement in the ledger (docs/design/economics.md §4.2): its realized net and the
// gate net the breaker reads price the recall hop where the decision put the original back. The hand
// figures are exact fractions from the reference, independent of src/:
//   python3 scripts/reference/economics.py examples   (R1 and P1 as predicted, both placements)
// and its gate_net / plan_net at the outcomes below (h = 4, q = 1, the recalls as reported).

const TENANT = "default";

/** Example R1 (docs/design/economics.md): 20,000 Opus tokens stubbed behind 30,000 cached ones, at h 20 so it fires. */
const R1 = {
  model_name: "claude-opus-4-6",
  output_tokens: 20_000,
  horizon: 20,
  recall_probability: 0.3,
  context_tokens: 60_000,
  cache_hit_rate: 0.9,
  offload_at: "retroactive",
  suffix_tokens: 30_000,
  stub_tokens: 200,
  recall_input_tokens: 2_000,
  recall_output_tokens: 500,
};

/** The outcome the R1 decisions report: recalled, four turns, every one cached. */
const RECALLED = { turns_after: 4, recalled: true, cached_turns: 4 };

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  forgetPricing();
}

async function call(path: string, json: unknown) {
  const res = await callWorker(path, { json });
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

/** The stored decision row and its outcome's nets, straight from its shard. */
async function stored(decisionId: string) {
  const shard = ledgerShard(env.LEDGER, TENANT, shardOfDecisionId(decisionId)!);
  return runInDurableObject(shard, (_instance, state) =>
    state.storage.sql
      .exec<Record<string, any>>(
        `SELECT d.*, o.realized_net, o.gate_net FROM decisions d
         LEFT JOIN outcomes o ON o.decision_id = d.id WHERE d.id = ?`,
        decisionId,
      )
      .one(),
  );
}

/** The core's figure for R1 at the RECALLED outcome: p = 1, h = 4, q = 1. */
const coreR1 = (placement: RecallPlacement) =>
  cacheAwareTerms(OPUS, {
    outputTokens: R1.output_tokens,
    horizon: 4,
    recallProbability: 1,
    cacheHitRate: 1,
    contextTokens: R1.context_tokens,
    stubTokens: R1.stub_tokens,
    recallInputTokens: R1.recall_input_tokens,
    recallOutputTokens: R1.recall_output_tokens,
    offloadAt: "retroactive",
    suffixTokens: R1.suffix_tokens,
    cacheTtl: "5m",
    recallPlacement: placement,
  }).net;

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await putConfig({ pricing_mode: "cache_aware", holdout_fraction: 0 });
});

describe("a cache-aware gate decision's recall placement in the ledger", () => {
  it("prices an in_place decision's realized and gate nets with the in_place hop: R1 recalled realizes −0.37655", async () => {
    const answer = await call("/v1/gate", { ...R1, recall_placement: "in_place", session_id: "r1-in-place" });
    expect(answer.fire).toBe(true);
    // The reference's R1 at h 20, in place: 0.186315.
    expect(answer.net_saving_usd).toBeCloseTo(0.186315, 10);
    await call("/v1/outcomes", { items: [{ decision_id: answer.decision_id, ...RECALLED }] });
    const row = await stored(answer.decision_id);
    expect(row.recall_placement).toBe("in_place");
    // Reference: gate_net(R1, h 4, p 1, q 1, "in_place") = −7531/20000.
    expect(row.realized_net).toBeCloseTo(-0.37655, 12);
    expect(row.realized_net).toBe(coreR1("in_place"));
    expect(row.gate_net).toBe(row.realized_net);
    const report = await (await callWorker("/v1/savings")).json<Record<string, any>>();
    expect(report.net.realized_usd).toBeCloseTo(-0.37655, 12);
  });

  it("prices an append decision, named or not, as before: R1 recalled realizes −0.20405, stored as NULL", async () => {
    const named = await call("/v1/gate", { ...R1, recall_placement: "append", session_id: "r1-append" });
    const unnamed = await call("/v1/gate", { ...R1, session_id: "r1-default" });
    expect(named.net_saving_usd).toBeCloseTo(0.23289, 10);
    expect(unnamed.net_saving_usd).toBe(named.net_saving_usd);
    await call("/v1/outcomes", {
      items: [named, unnamed].map((answer) => ({ decision_id: answer.decision_id, ...RECALLED })),
    });
    for (const answer of [named, unnamed]) {
      const row = await stored(answer.decision_id);
      expect(row.recall_placement).toBeNull();
      // Reference: gate_net(R1, h 4, p 1, q 1, "append") = −4081/20000.
      expect(row.realized_net).toBeCloseTo(-0.20405, 12);
      expect(row.realized_net).toBe(coreR1("append"));
      expect(row.gate_net).toBe(row.realized_net);
    }
    expect(coreR1("append")).not.toBeCloseTo(coreR1("in_place"), 3);
  });
});

describe("a plan's and a clearing's recall placement in the ledger", () => {
  it("prices an in_place plan's recalled c3 by writing the 2,000 tokens after it: P1 realizes 0.059725, not 0.071225", async () => {
    const plan = await call("/v1/plan", { ...WORKED_EXAMPLE_P1, recall_placement: "in_place", session_id: "p1" });
    expect(plan.stub).toEqual(["c1", "c2", "c3"]);
    // The reference's best P1 plan in place: 284293/1600000.
    expect(plan.net_saving_usd).toBeCloseTo(0.177683125, 9);
    await call("/v1/outcomes", {
      items: [{ decision_id: plan.decision_id, turns_after: 4, recalled: true, recalled_ids: ["c3"], cached_turns: 4 }],
    });
    const row = await stored(plan.decision_id);
    expect(row.recall_placement).toBe("in_place");
    // Reference: plan_net(P1, p 0, 0, 1, q 1, "in_place") = 2389/40000; appended it is 2849/40000
    // (test/ledger/ledger-realized-net.test.ts): 2,000 × ($6.25 − $0.5)/M apart.
    expect(row.realized_net).toBeCloseTo(0.059725, 12);
    expect(row.gate_net).toBe(row.realized_net);
  });

  it("keeps a clearing decision's in_place placement, and NULL for one that named none", async () => {
    const inPlace = await call("/v1/context-management", {
      ...WORKED_EXAMPLE_CLEARING,
      recall_placement: "in_place",
      session_id: "clearing-in-place",
    });
    const unnamed = await call("/v1/context-management", {
      ...WORKED_EXAMPLE_CLEARING,
      session_id: "clearing-default",
    });
    expect((await stored(inPlace.decision_id)).recall_placement).toBe("in_place");
    expect((await stored(unnamed.decision_id)).recall_placement).toBeNull();
  });
});

describe("migration 11: a shard from before recall placements", () => {
  it("gains the column with NULL on every older row, which reads and prices as appended, bit for bit", async () => {
    const answer = await call("/v1/gate", { ...R1, session_id: "old-shard" });
    const shard = ledgerShard(env.LEDGER, TENANT, shardOfDecisionId(answer.decision_id)!);
    const before = await stored(answer.decision_id);
    // Roll the shard back to schema 10, as the worker before placements left it.
    await runInDurableObject(shard, (_instance, state) => {
      state.storage.sql.exec("ALTER TABLE decisions DROP COLUMN recall_placement");
      state.storage.sql.exec("UPDATE meta SET value = '10' WHERE key = 'schema_version'");
    });
    await evictDurableObject(shard);
    await call("/v1/outcomes", { items: [{ decision_id: answer.decision_id, ...RECALLED }] });
    const after = await stored(answer.decision_id);
    const version = await runInDurableObject(
      shard,
      (_instance, state) =>
        state.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").one().value,
    );
    expect(Number(version)).toBe(MIGRATIONS.length);
    expect(MIGRATIONS.length).toBeGreaterThanOrEqual(11);
    expect(after.recall_placement).toBeNull();
    const { realized_net, gate_net, ...upgraded } = after;
    expect(upgraded).toEqual({ ...before, realized_net: undefined, gate_net: undefined, recall_placement: null });
    expect(realized_net).toBe(coreR1("append"));
    expect(gate_net).toBe(realized_net);
  });
});
