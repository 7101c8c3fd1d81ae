import { reset, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ledgerShardKey } from "../../src/storage/rules/keys";
import { pricesOf } from "../../src/routes/gate/direct/ledger";
import { WORKED_EXAMPLE_P1 } from "../../src/routes/plan/schema";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker, type Tenant } from "../support/ledger-fixtures";
import { ALICE_TOKEN } from "../support/secrets";

// docs/design/ledger.md §3 and §7 end to end, on the worker: gate → outcome → /v1/savings,
// plans priced, and each of the red team's rough edges.

const post = async (path: string, items: unknown[], key: Tenant = "agents-prod", envOver: Partial<Env> = {}) => {
  const res = await callWorker(path, { json: { items }, key }, envOver);
  return { status: res.status, body: await res.json<Record<string, any>>() };
};

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  const { forgetPricing } = await import("../../src/storage/read");
  forgetPricing();
}

const savings = async (query = "", envOver: Partial<Env> = {}) => {
  const res = await callWorker(`/v1/savings${query}`, { key: "agents-prod" }, envOver);
  return { status: res.status, body: await res.json<Record<string, any>>() };
};

/**
 * Which of these tenants' shards 0 … 7 hold anything: a table or a stored
 * key. (The local runtime lists every object that was ever addressed, so
 * "created" is judged by what it stores, as storage is what persists.)
 */
async function existing(tenants: string[]): Promise<string[]> {
  const names = tenants.flatMap((t) => Array.from({ length: 8 }, (_, shard) => `${t}/${shard}`));
  const held = await Promise.all(
    names.map((name) =>
      runInDurableObject(env.LEDGER.get(env.LEDGER.idFromName(name)), async (_instance, state) => {
        const tables = state.storage.sql
          .exec("SELECT name FROM sqlite_master WHERE name NOT LIKE '_cf%' AND name NOT LIKE 'sqlite%'")
          .toArray();
        return tables.length > 0 || (await state.storage.list()).size > 0;
      }),
    ),
  );
  return names.filter((_, i) => held[i]);
}

const hanging = env.LEDGER_HANGING;
const hangingLedger = { LEDGER: hanging as unknown as Env["LEDGER"] };

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

afterEach(async () => {
  await hanging.get(hanging.idFromName("probe")).release();
  vi.restoreAllMocks();
});

describe("the realized net, complete (§4)", () => {
  it("keeps every price of the row a decision was priced with, the 1-hour writes and the tier's included", () => {
    const row = {
      input: 3,
      output: 15,
      cache_read: 0.3,
      cache_write: 3.75,
      cache_write_1h: 6,
      provider: "anthropic",
      source: "https://example.com/p",
      long_context: {
        threshold_tokens: 200_000,
        input: 6,
        output: 22.5,
        cache_read: 0.6,
        cache_write: 7.5,
        cache_write_1h: 12,
      },
    };
    expect(pricesOf(row)).toEqual({
      input: 3,
      output: 15,
      cache_read: 0.3,
      cache_write: 3.75,
      cache_write_1h: 6,
      long_context: {
        threshold_tokens: 200_000,
        input: 6,
        output: 22.5,
        cache_read: 0.6,
        cache_write: 7.5,
        cache_write_1h: 12,
      },
    });
  });

  it("prices a 1-hour decision at the 1-hour write: example T1 realizes 0.2277, not 0.15345", async () => {
    await putConfig({ pricing_mode: "cache_aware" });
    const T1 = {
      model_name: "claude-opus-4-6",
      output_tokens: 20_000,
      horizon: 4,
      recall_probability: 0.3,
      context_tokens: 60_000,
      cache_hit_rate: 0.9,
      cache_ttl: "1h",
      session_id: "t1",
    };
    const answer = await (await callWorker("/v1/gate", { json: T1, key: "agents-prod" })).json<Record<string, any>>();
    expect(answer.fire).toBe(true);
    expect(answer.net_saving_usd).toBeCloseTo(0.24828, 5);
    const outcome = await post("/v1/outcomes", [
      { decision_id: answer.decision_id, turns_after: 4, recalled: false, cached_turns: 4 },
    ]);
    expect(outcome.body.accepted).toBe(1);
    const report = (await savings()).body;
    expect(report.net.fired_with_outcome).toBe(1);
    // Hand arithmetic: 20,000 × ($10 + 3 × $0.5)/M − 200 × ($10 + 3 × $0.5)/M = 0.23 − 0.0023.
    expect(report.net.realized_usd).toBeCloseTo(0.2277, 10);
  });

  it("prices a plan from its recalled_ids by the plan's own formula", async () => {
    const plan = await (
      await callWorker("/v1/plan", { json: { ...WORKED_EXAMPLE_P1, session_id: "p1" }, key: "agents-prod" })
    ).json<Record<string, any>>();
    expect(plan.stub).toEqual(["c1", "c2", "c3"]);
    const result = await post("/v1/outcomes", [
      { decision_id: plan.decision_id, turns_after: 4, recalled: true, recalled_ids: ["c3"], cached_turns: 4 },
    ]);
    expect(result.body.results).toEqual([{ status: "accepted", repeated: false }]);
    const report = (await savings()).body;
    // By hand (docs/design/plan.md §2.2, q = 1, p = 0, 0, 1): keep 101,500 × 4 × $0.5/M = 0.203; plan 8,000 × 4 × $0.5/M
    // + 7,100 × ($6.25 + 3 × $0.5)/M + (2,000 × $6.25 + 500 × $25 + (69,500 + 2,000) × $0.5)/M = 0.131775:
    // c3's recall hop, appended at the end as the clients do, reads the whole history before it.
    expect(report.net.realized_usd).toBeCloseTo(0.071225, 10);
    expect(report.net.predicted_usd).toBeCloseTo(0.277302, 6);
  });

  it("refuses recalled_ids the plan did not stub, and on a gate decision", async () => {
    const plan = await (
      await callWorker("/v1/plan", { json: { ...WORKED_EXAMPLE_P1, session_id: "p2" }, key: "agents-prod" })
    ).json<Record<string, any>>();
    const gate = await (
      await callWorker("/v1/gate", {
        json: { model_name: "claude-opus-4-6", output_tokens: 20_000 },
        key: "agents-prod",
      })
    ).json<Record<string, any>>();
    const { body } = await post("/v1/outcomes", [
      { decision_id: plan.decision_id, turns_after: 4, recalled: true, recalled_ids: ["nope"] },
      { decision_id: gate.decision_id, turns_after: 4, recalled: false, recalled_ids: [] },
    ]);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(["invalid", "invalid"]);
    expect(body.results[0].issues[0].path).toBe("recalled_ids.0");
    expect(body.results[1].issues[0].path).toBe("recalled_ids");
  });

  it("answers a plan in the holdout net_saving_usd 0 and would_net_saving_usd", async () => {
    await putConfig({ holdout_fraction: 0.5 });
    let held: Record<string, any> | undefined;
    for (let i = 0; i < 40 && held === undefined; i++) {
      const plan = await (
        await callWorker("/v1/plan", { json: { ...WORKED_EXAMPLE_P1, session_id: `h${i}` }, key: "agents-prod" })
      ).json<Record<string, any>>();
      if (plan.reason_code === "holdout") held = plan;
    }
    expect(held).toMatchObject({ stub: [], net_saving_usd: 0, would_stub: ["c1", "c2", "c3"] });
    expect(held?.would_net_saving_usd).toBeCloseTo(0.277302, 6);
  });
});

describe("the rough edges (§5)", () => {
  it("bounds the savings report by ledger_timeout_ms: a shard that hangs is unavailable, never waited on", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await putConfig({ ledger_timeout_ms: 100 });
    // A tenant that wrote to every shard (one that never wrote asks none: test/ledger/ledger-written-shards.test.ts).
    for (let shard = 0; shard < 4; shard++) await env.PRICING.put(ledgerShardKey("agents-prod", shard), "1");
    const started = Date.now();
    const { status, body } = await savings("", hangingLedger);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(status).toBe(503);
    expect(body.error.code).toBe("unavailable");
  });

  it("bounds the outcome and session reports by ledger_timeout_ms, answering 503 to retry", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await putConfig({ ledger_timeout_ms: 100 });
    const started = Date.now();
    const outcome = await post(
      "/v1/outcomes",
      [{ decision_id: `dec_0_${"a".repeat(32)}`, turns_after: 1, recalled: false }],
      "agents-prod",
      hangingLedger,
    );
    const session = await post(
      "/v1/sessions",
      [{ session_id: "s", model_name: "claude-opus-4-6", turns: 1, usage: { input_tokens: 1, output_tokens: 1 } }],
      "agents-prod",
      hangingLedger,
    );
    expect(Date.now() - started).toBeLessThan(4_000);
    expect([outcome.status, session.status]).toEqual([503, 503]);
  });

  it("makes a session whose pricing cannot be read that item's invalid, not a 503 for the report", async () => {
    const get = env.PRICING.get.bind(env.PRICING);
    vi.spyOn(env.PRICING, "get").mockImplementation((async (key: string, ...rest: unknown[]) => {
      if (key === "pricing:broken-model") throw new Error("KV is down for this key");
      return (get as (...a: unknown[]) => unknown)(key, ...rest);
    }) as typeof env.PRICING.get);
    const usage = { input_tokens: 1_000, output_tokens: 0 };
    const { status, body } = await post("/v1/sessions", [
      { session_id: "ok", model_name: "claude-opus-4-6", turns: 1, usage },
      { session_id: "broken", model_name: "broken-model", turns: 1, usage },
    ]);
    expect(status).toBe(200);
    expect(body.results[0]).toEqual({ status: "accepted", repeated: false });
    expect(body.results[1]).toMatchObject({ status: "invalid", issues: [{ path: "items.1.model_name" }] });
  });

  it("charges a session report against the rate limit per distinct model, as a batch is", async () => {
    const run = crypto.randomUUID().slice(0, 8);
    const key = `key-${run}-0123456789abcdef`;
    const items = ["a", "b", "c", "d"].map((m) => ({
      session_id: `s-${m}`,
      model_name: `model-${m}`,
      turns: 1,
      usage: { input_tokens: 1, output_tokens: 1 },
    }));
    const res = await callWorker(
      "/v1/sessions",
      { json: { items }, headers: { authorization: `Bearer ${key}` } },
      {
        GATE_RATE_LIMITER: env.TEST_TIGHT_LIMITER,
        GATE_API_KEYS: `sessions-${run}:${key}`,
      },
    );
    expect(res.status).toBe(429);
  });

  /** A tenant of its own, through a gate key of its own: no earlier test touched its shards. */
  function freshTenant() {
    const run = crypto.randomUUID().slice(0, 8);
    const key = `key-${run}-0123456789abcdef`;
    const tenant = `fresh-${run}`;
    const call = (path: string, json?: unknown) =>
      callWorker(
        path,
        { ...(json === undefined ? {} : { json }), headers: { authorization: `Bearer ${key}` } },
        { GATE_API_KEYS: `${tenant}:${key}` },
      );
    return { tenant, call };
  }

  it("answers unknown_decision for a decision id whose shard is not below the configured count, touching no object", async () => {
    await putConfig({ ledger_shards: 2 });
    const { tenant, call } = freshTenant();
    const res = await call("/v1/outcomes", {
      items: [{ decision_id: `dec_7_${"b".repeat(32)}`, turns_after: 1, recalled: false }],
    });
    expect((await res.json<Record<string, any>>()).results[0].status).toBe("unknown_decision");
    expect(await existing([tenant])).toEqual([]);
    // Against a ledger whose every object hangs: an answer at all means no object was asked.
    await putConfig({ ledger_shards: 2, ledger_timeout_ms: 5_000 });
    const started = Date.now();
    const probe = await post(
      "/v1/outcomes",
      [{ decision_id: `dec_2_${"b".repeat(32)}`, turns_after: 1, recalled: false }],
      "agents-prod",
      hangingLedger,
    );
    expect(probe.body.results[0].status).toBe("unknown_decision");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("creates no Durable Object on any read: the savings reports, an unknown tenant's, outcomes on no decision", async () => {
    const { tenant, call } = freshTenant();
    expect((await call("/v1/savings")).status).toBe(200);
    const admin = await callWorker(`/v1/admin/savings?tenant=never-${tenant}`, {
      headers: { authorization: `Bearer ${ALICE_TOKEN}` },
    });
    expect(admin.status).toBe(200);
    await call("/v1/outcomes", {
      items: [{ decision_id: `dec_1_${"c".repeat(32)}`, turns_after: 1, recalled: false }],
    });
    await call("/v1/sessions", {
      items: [{ session_id: "x", model_name: "no-such-model", turns: 1, usage: { input_tokens: 1, output_tokens: 1 } }],
    });
    expect(await existing([tenant, `never-${tenant}`])).toEqual([]);
    // And a write does create its shard: the check can fail.
    await call("/v1/gate", { model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: "w" });
    expect(await existing([tenant])).toHaveLength(1);
  });
});
