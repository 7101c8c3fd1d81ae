import { reset, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerShard, shardOfDecisionId } from "../../../src/ledger";
import { OPUS, putRow, resetState } from "../../support/helpers";
import { callWorker, type Tenant } from "../../support/ledger-fixtures";
import { WORKED_EXAMPLE_P1, WORKED_EXAMPLE_P1_ANSWER } from "../../../src/routes/plan/schema";
import { ALICE_TOKEN } from "../../support/secrets";

const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };

async function decide(body: Record<string, unknown>, key: Tenant = "agents-prod") {
  const res = await callWorker("/v1/gate", { json: body, key });
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

const post = async (path: string, items: unknown[], key: Tenant = "agents-prod") => {
  const res = await callWorker(path, { json: { items }, key });
  return { status: res.status, body: await res.json<Record<string, any>>() };
};

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  const { forgetPricing } = await import("../../../src/storage/read");
  forgetPricing();
}

beforeEach(async () => {
  // Every binding emptied, the ledger's Durable Objects included.
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("decision ids", () => {
  it("come with every answer, naming a shard below the configured count", async () => {
    await putConfig({ ledger_shards: 8 });
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await decide({ ...GATE })).decision_id);
    expect(ids.size).toBe(20);
    for (const id of ids) expect(shardOfDecisionId(id)).toBeLessThan(8);
  });

  it("route a session's decisions to one shard, where the ledger keeps them", async () => {
    await putConfig({ ledger_shards: 8 });
    const a = await decide({ ...GATE, session_id: "conv-1", tool_name: "web.fetch" });
    const b = await decide({ ...GATE, session_id: "conv-1", tool_name: "grep" });
    const shard = shardOfDecisionId(a.decision_id) ?? -1;
    expect(shardOfDecisionId(b.decision_id)).toBe(shard);
    const sums = await ledgerShard(env.LEDGER, "agents-prod", shard).sums(
      "agents-prod",
      { from: 0, to: Date.now() + 1_000 },
      86_400_000,
    );
    expect(sums.decisions).toBeGreaterThanOrEqual(2);
  });

  it("refuse a session_id or tool_name outside their patterns, naming the field", async () => {
    const res = await callWorker("/v1/gate", {
      json: { ...GATE, session_id: "has space", tool_name: "x".repeat(65) },
      key: "agents-prod",
    });
    expect(res.status).toBe(400);
    const paths = (await res.json<{ error: { issues: { path: string }[] } }>()).error.issues.map((i) => i.path);
    expect(paths.sort()).toEqual(["session_id", "tool_name"]);
  });
});

describe("the raw window", () => {
  it("reaches the shard with the gate's own write: ledger_raw_days from config:gate", async () => {
    await putConfig({ ledger_shards: 1, ledger_raw_days: 5 });
    await decide({ ...GATE, session_id: "raw-window" });
    const kept = await runInDurableObject(ledgerShard(env.LEDGER, "agents-prod", 0), (_instance, state) =>
      state.storage.sql
        .exec("SELECT value FROM meta WHERE key = 'raw_days'")
        .toArray()
        .map((row) => Number(row.value)),
    );
    expect(kept).toEqual([5]);
  });
});

describe("POST /v1/outcomes", () => {
  it("accepts an outcome, accepts the same report again, and answers conflict for different content", async () => {
    const { decision_id } = await decide({ ...GATE, session_id: "conv-2" });
    const outcome = { decision_id, turns_after: 5, recalled: false, cached_turns: 4 };
    const first = await post("/v1/outcomes", [outcome]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ accepted: 1, results: [{ status: "accepted", repeated: false }] });
    expect((await post("/v1/outcomes", [outcome])).body.results).toEqual([{ status: "accepted", repeated: true }]);
    const changed = await post("/v1/outcomes", [{ ...outcome, recalled: true }]);
    expect(changed.body).toMatchObject({ conflict: 1, results: [{ status: "conflict" }] });
  });

  it("answers each item on its own: unknown decision, invalid fields named, the rest accepted", async () => {
    const { decision_id } = await decide({ ...GATE });
    const { body } = await post("/v1/outcomes", [
      { decision_id: `dec_0_${"a".repeat(32)}`, turns_after: 1, recalled: false },
      { decision_id, turns_after: 2, recalled: false, cached_turns: 3 },
      { decision_id: "not-an-id", turns_after: -1, recalled: "no" },
      { decision_id, turns_after: 2, recalled: false },
    ]);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual([
      "unknown_decision",
      "invalid",
      "invalid",
      "accepted",
    ]);
    expect(body.results[1].issues).toEqual([{ path: "items.1.cached_turns", message: "must be at most turns_after" }]);
    expect(body.results[2].issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "items.2.decision_id",
      "items.2.recalled",
      "items.2.turns_after",
    ]);
    expect(body).toMatchObject({ accepted: 1, unknown_decision: 1, conflict: 0, invalid: 2 });
  });

  it("refuses a recall for a decision that did not fire", async () => {
    const { decision_id, fire } = await decide({ ...GATE, output_tokens: 500 });
    expect(fire).toBe(false);
    const { body } = await post("/v1/outcomes", [{ decision_id, turns_after: 2, recalled: true }]);
    expect(body.results[0]).toMatchObject({ status: "invalid", issues: [{ path: "recalled" }] });
  });

  it("lets a tenant report only on its own decisions", async () => {
    const { decision_id } = await decide({ ...GATE, session_id: "conv-3" }, "agents-prod");
    const outcome = { decision_id, turns_after: 3, recalled: false };
    const stranger = await post("/v1/outcomes", [outcome], "agents-staging");
    expect(stranger.body.results[0].status).toBe("unknown_decision");
    // The owner's report is still the first one, so it is accepted, not a repeat.
    expect((await post("/v1/outcomes", [outcome], "agents-prod")).body.results[0]).toEqual({
      status: "accepted",
      repeated: false,
    });
  });

  it("refuses more than 100 items, and a body that is not {items: [...]}, in the one error shape", async () => {
    const tooMany = await post(
      "/v1/outcomes",
      Array.from({ length: 101 }, () => ({})),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: "invalid_request", issues: [{ path: "items" }] });
    const res = await callWorker("/v1/outcomes", { json: [1, 2], key: "agents-prod" });
    expect(res.status).toBe(400);
  });
});

describe("GET /v1/savings", () => {
  it("shows a tenant its own ledger only, and an admin any tenant's", async () => {
    await decide({ ...GATE, tool_name: "grep" }, "agents-prod");
    const own = await (await callWorker("/v1/savings", { key: "agents-prod" })).json<Record<string, any>>();
    const other = await (await callWorker("/v1/savings", { key: "agents-staging" })).json<Record<string, any>>();
    expect(own.decisions).toBeGreaterThanOrEqual(1);
    expect(other).toMatchObject({ tenant: "agents-staging", decisions: 0 });
    const admin = await callWorker("/v1/admin/savings?tenant=agents-prod&tool_name=grep", {
      headers: { authorization: `Bearer ${ALICE_TOKEN}` },
    });
    expect(admin.status).toBe(200);
    expect(await admin.json()).toMatchObject({ tenant: "agents-prod", filters: { tool_name: "grep" }, decisions: 1 });
  });

  it("filters by window, tool and model", async () => {
    await decide({ ...GATE, tool_name: "grep" });
    await decide({ ...GATE, tool_name: "web.fetch" });
    const query = async (q: string) =>
      (await (await callWorker(`/v1/savings?${q}`, { key: "agents-prod" })).json<Record<string, any>>()).decisions;
    expect(await query("tool_name=grep")).toBe(1);
    expect(await query("model=claude-opus-4-6")).toBe(2);
    expect(await query("model=gpt-5")).toBe(0);
    expect(await query("from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z")).toBe(0);
  });

  it("names a wrong query parameter, and wants a tenant on the admin route", async () => {
    const res = await callWorker("/v1/savings?from=yesterday&bogus=1", { key: "agents-prod" });
    expect(res.status).toBe(400);
    const paths = (await res.json<{ error: { issues: { path: string }[] } }>()).error.issues.map((i) => i.path);
    expect(paths.sort()).toEqual(["bogus", "from"]);
    const admin = await callWorker("/v1/admin/savings", { headers: { authorization: `Bearer ${ALICE_TOKEN}` } });
    expect(admin.status).toBe(400);
    expect(await callWorker("/v1/admin/savings?tenant=agents-prod")).toHaveProperty("status", 401);
  });
});

describe("the holdout", () => {
  it("answers a held-out session's priced decisions fire: false, reason_code holdout, would_fire, the terms unchanged", async () => {
    await putConfig({ holdout_fraction: 0.5 });
    const answers = [];
    for (let i = 0; i < 16; i++) answers.push(await decide({ ...GATE, session_id: `held-${i}` }));
    const held = answers.filter((a) => a.reason_code === "holdout");
    const treated = answers.filter((a) => a.reason_code === "net_positive");
    expect(held.length).toBeGreaterThan(0);
    expect(treated.length).toBeGreaterThan(0);
    const strip = ({
      fire: _f,
      reason: _r,
      reason_code: _c,
      would_fire: _w,
      decision_id: _d,
      ...terms
    }: Record<string, unknown>) => terms;
    for (const a of held) {
      expect(a).toMatchObject({ fire: false, would_fire: true });
      expect(a.reason).toMatch(/^holdout: would fire; net=\$0\.3893/);
      expect(strip(a)).toEqual(strip(treated[0] ?? {}));
    }
    for (const a of treated) expect(a).not.toHaveProperty("would_fire");
  });

  it("puts every decision of a session in the same arm", async () => {
    await putConfig({ holdout_fraction: 0.5 });
    for (let s = 0; s < 6; s++) {
      const codes = new Set<string>();
      for (let i = 0; i < 3; i++) codes.add((await decide({ ...GATE, session_id: `same-${s}` })).reason_code);
      expect(codes.size).toBe(1);
    }
  });

  it("changes nothing at the default of 0", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => decide({ ...GATE, session_id: `s-${i}` })));
    for (const a of answers) {
      expect(a.reason_code).toBe("net_positive");
      expect(a).not.toHaveProperty("would_fire");
    }
  });
});

describe("clearing plans in the ledger", () => {
  const PLAN = { ...WORKED_EXAMPLE_P1, session_id: "plan-session", tool_name: "history.clear" };

  it("give every plan a decision id in its session's shard, which takes an outcome", async () => {
    await putConfig({ ledger_shards: 8 });
    const gate = await decide({ ...GATE, session_id: "plan-session" });
    const res = await callWorker("/v1/plan", { json: PLAN, key: "agents-prod" });
    const plan = await res.json<Record<string, any>>();
    expect(plan.stub).toEqual(["c1", "c2", "c3"]);
    expect(shardOfDecisionId(plan.decision_id)).toBe(shardOfDecisionId(gate.decision_id));
    const { body } = await post("/v1/outcomes", [
      { decision_id: plan.decision_id, turns_after: 4, recalled: true, recalled_ids: ["c1"] },
    ]);
    expect(body.results[0]).toEqual({ status: "accepted", repeated: false });
    const report = await (await callWorker("/v1/savings?tool_name=history.clear", { key: "agents-prod" })).json<
      Record<string, any>
    >();
    // Counted, with its outcome's recall and horizon, and priced (test/ledger/ledger-realized-net.test.ts checks the figure).
    expect(report).toMatchObject({
      decisions: 1,
      fired: 1,
      outcomes: 1,
      recall: { n: 1, realized: 1 },
      horizon: { n: 1, realized_mean: 4 },
      net: { fired_with_outcome: 1 },
    });
  });

  it("stub nothing for a held-out session, saying what they would have stubbed", async () => {
    await putConfig({ holdout_fraction: 0.5 });
    const plans = [];
    for (let i = 0; i < 12; i++) {
      plans.push(
        await (await callWorker("/v1/plan", { json: { ...PLAN, session_id: `plan-${i}` }, key: "agents-prod" })).json<
          Record<string, any>
        >(),
      );
    }
    const held = plans.filter((p) => p.reason_code === "holdout");
    expect(held.length).toBeGreaterThan(0);
    for (const p of held) {
      expect(p).toMatchObject({
        stub: [],
        would_stub: ["c1", "c2", "c3"],
        net_saving_usd: 0,
        would_net_saving_usd: WORKED_EXAMPLE_P1_ANSWER.net_saving_usd,
      });
      expect(p.candidates.every((c: { stubbed: boolean }) => !c.stubbed)).toBe(true);
    }
    expect(plans.filter((p) => p.reason_code === "plan_positive").length).toBe(12 - held.length);
  });
});
