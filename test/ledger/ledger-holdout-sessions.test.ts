import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerShard, type PricedSession } from "../../src/ledger";
import { shardFor } from "../../src/ledger/model/ids";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker, decisionIdOf, seedDecision, type Tenant } from "../support/ledger-fixtures";
import { fromRawRows, fromRollups } from "../support/ledger-rollup-fixtures";

// The holdout (docs/design/ledger.md §2): holdout.sessions counts the billed sessions with a decision, for a tool about it.

const post = async (path: string, items: unknown[], key: Tenant = "agents-prod") => {
  const res = await callWorker(path, { json: { items }, key });
  return { status: res.status, body: await res.json<Record<string, any>>() };
};
const savings = async (query = "") => (await callWorker(`/v1/savings${query}`, { key: "agents-prod" })).json<any>();

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  const { forgetPricing } = await import("../../src/storage/read");
  forgetPricing();
}

const bill = (session_id: string, input_tokens: number) => ({
  session_id,
  model_name: "claude-opus-4-6",
  turns: 4,
  usage: { input_tokens, output_tokens: 0 },
});

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("holdout.sessions", () => {
  it("is not raised by a session bill whose session had no decision, for the tenant or a tool", async () => {
    const gate = await callWorker("/v1/gate", {
      json: { model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: "decided", tool_name: "grep" },
      key: "agents-prod",
    });
    expect(gate.status).toBe(200);
    const billed = await post("/v1/sessions", [bill("decided", 1_000_000), bill("bill-only", 3_000_000)]);
    expect(billed.body.results).toEqual([
      { status: "accepted", repeated: false },
      { status: "accepted", repeated: false },
    ]);
    for (const query of ["", "?tool_name=grep"]) {
      const { holdout } = await savings(query);
      expect(holdout.sessions).toBe(1);
      // The decided session's bill alone: 1,000,000 input tokens at $5 per million.
      expect(holdout.mean_cost_usd).toBeCloseTo(5, 9);
      expect(holdout.tools).toMatchObject([{ tool_name: "grep", observed: false, sessions: 1, share: 1 }]);
    }
  });

  it("is the same from the shard's raw rows and from its rollups, a bill-only session left out of both", async () => {
    const tenant = `holdout-sessions-${Date.now()}`;
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const at = Date.now() - 3_600_000;
    const decisions = ["a", "b", "c"].map((s, i) =>
      seedDecision({ decision_id: decisionIdOf(0, i + 1), at, session_id: s, tool_name: i === 2 ? null : "grep" }),
    );
    await shard.record(tenant, decisions, 30);
    const priced = ["a", "b", "c", "bill-only"].map(
      (s, i): PricedSession => ({
        ...bill(s, 1_000_000 * (i + 1)),
        priced_as: "claude-opus-4-6",
        cost_usd: 5 * (i + 1),
        report: JSON.stringify([s, i]),
      }),
    );
    await shard.reportSessions(tenant, at + 60_000, priced, 30);
    const filter = { from: at - 3_600_000, to: Date.now() + 1 };
    const [rolled, raw] = await Promise.all([
      fromRollups(tenant, filter, 86_400_000),
      fromRawRows(tenant, filter, 86_400_000),
    ]);
    expect(raw.holdout.sessions).toBe(3);
    expect(rolled.holdout).toEqual(raw.holdout);
    // The bills the shard holds still count every session: only the holdout leaves the bill-only one out.
    expect(raw.sums.sessions.n).toBe(4);
    expect(rolled.sums.sessions.n).toBe(4);
  });

  it("counts a session bill retried after ledger_shards was raised once", async () => {
    const tenant = "agents-prod";
    // A session whose hash shard moves when the count goes from 1 to 8.
    const id = Array.from({ length: 50 }, (_, i) => `moved-${i}`).find(
      (s) => shardFor(tenant, s, 8, new Uint8Array(16)) !== 0,
    )!;
    await putConfig({ ledger_shards: 1 });
    const gate = { model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: id };
    expect((await callWorker("/v1/gate", { json: gate, key: tenant })).status).toBe(200);
    expect((await post("/v1/sessions", [bill(id, 1_000_000)])).body.results).toEqual([
      { status: "accepted", repeated: false },
    ]);
    await putConfig({ ledger_shards: 8 });
    expect((await post("/v1/sessions", [bill(id, 1_000_000)])).body.results).toEqual([
      { status: "accepted", repeated: true },
    ]);
    expect((await savings()).holdout.sessions).toBe(1);
  });
});
