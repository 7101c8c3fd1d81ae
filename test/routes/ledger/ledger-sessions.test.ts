import { reset, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerShard } from "../../../src/ledger";
import { OPUS, putRow, resetState } from "../../support/helpers";
import { callWorker } from "../../support/ledger-fixtures";

const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };
const SESSION = {
  session_id: "conv-cov",
  model_name: "claude-opus-4-6",
  turns: 4,
  usage: { input_tokens: 1_000_000, output_tokens: 0 },
};

async function decide(body: Record<string, unknown>) {
  const res = await callWorker("/v1/gate", { json: body, key: "agents-prod" });
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

const post = async (items: unknown[]) => {
  const res = await callWorker("/v1/sessions", { json: { items }, key: "agents-prod" });
  return { status: res.status, body: await res.json<Record<string, any>>() };
};

/** The covariate column of a session, read from whichever shard holds its bill. */
async function storedCovariate(sessionId: string): Promise<number | null | undefined> {
  for (let shard = 0; shard < 4; shard++) {
    const held = await runInDurableObject(ledgerShard(env.LEDGER, "agents-prod", shard), (_instance, state) => {
      const tables = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'sessions'").toArray();
      if (tables.length === 0) return undefined;
      return state.storage.sql
        .exec<{ covariate: number | null }>("SELECT covariate FROM sessions WHERE session_id = ?", sessionId)
        .toArray()[0]?.covariate;
    });
    if (held !== undefined) return held;
  }
  return undefined;
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("POST /v1/sessions", () => {
  const BILL = { ...SESSION, session_id: "conv-9" };

  it("prices the bill from the model's row, and is idempotent", async () => {
    // A session with a decision: the holdout counts only those (docs/design/ledger.md §2), and its mean cost is the bill's price.
    await decide({ ...GATE, session_id: BILL.session_id });
    expect((await post([BILL])).body.results).toEqual([{ status: "accepted", repeated: false }]);
    expect((await post([BILL])).body.results).toEqual([{ status: "accepted", repeated: true }]);
    const conflict = await post([{ ...BILL, turns: 5 }]);
    expect(conflict.body.results[0].status).toBe("conflict");
    const report = await (await callWorker("/v1/savings", { key: "agents-prod" })).json<Record<string, any>>();
    expect(report.holdout).toMatchObject({ sessions: 1, mean_cost_usd: 5 }); // 1M input tokens at $5/M
  });

  it("answers invalid for a model no row prices, and for fields out of range", async () => {
    const { body } = await post([
      { ...BILL, session_id: "a", model_name: "mystery-model" },
      { ...BILL, session_id: "b", usage: { input_tokens: -1 } },
    ]);
    expect(body.results[0]).toMatchObject({ status: "invalid", issues: [{ path: "items.0.model_name" }] });
    expect(body.results[1].issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "items.1.usage.input_tokens",
      "items.1.usage.output_tokens",
    ]);
  });
});

describe("POST /v1/sessions with a covariate", () => {
  it("stores the covariate with the bill, and a session without one stores none", async () => {
    const sent = await post([
      { ...SESSION, covariate: 1_250_000.5 },
      { ...SESSION, session_id: "conv-none" },
    ]);
    expect(sent.body.results).toEqual([
      { status: "accepted", repeated: false },
      { status: "accepted", repeated: false },
    ]);
    expect(await storedCovariate("conv-cov")).toBe(1_250_000.5);
    expect(await storedCovariate("conv-none")).toBeNull();
  });

  it("takes the same covariate again as a repeat, and another one as a conflict", async () => {
    await post([{ ...SESSION, covariate: 40 }]);
    expect((await post([{ ...SESSION, covariate: 40 }])).body.results[0]).toEqual({
      status: "accepted",
      repeated: true,
    });
    expect((await post([{ ...SESSION, covariate: 41 }])).body.results[0].status).toBe("conflict");
    expect((await post([SESSION])).body.results[0].status).toBe("conflict");
  });

  it("answers invalid naming the field for a covariate that is negative, too large or not a number", async () => {
    const { status, body } = await post([
      { ...SESSION, session_id: "a", covariate: -1 },
      { ...SESSION, session_id: "b", covariate: 2e15 },
      { ...SESSION, session_id: "c", covariate: "many" },
      { ...SESSION, session_id: "d", covariate: null },
    ]);
    expect(status).toBe(200);
    body.results.forEach((result: Record<string, any>, i: number) =>
      expect(result).toMatchObject({ status: "invalid", issues: [{ path: `items.${i}.covariate` }] }),
    );
    expect(body.results[0].issues[0].message).toMatch(/≥ 0/);
    expect(body.results[1].issues[0].message).toMatch(/at most/);
  });
});

/** The diagnosed cache-miss columns of a session, read from whichever shard holds its bill. */
async function storedMisses(sessionId: string) {
  for (let shard = 0; shard < 4; shard++) {
    const held = await runInDurableObject(ledgerShard(env.LEDGER, "agents-prod", shard), (_instance, state) => {
      const tables = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'sessions'").toArray();
      if (tables.length === 0) return undefined;
      return state.storage.sql
        .exec<{ missed_after_rewrite: number | null; missed_other: number | null }>(
          "SELECT missed_after_rewrite, missed_other FROM sessions WHERE session_id = ?",
          sessionId,
        )
        .toArray()[0];
    });
    if (held !== undefined) return held;
  }
  return undefined;
}

describe("POST /v1/sessions with diagnosed cache misses", () => {
  it("stores the misses after the gate's rewrites apart from the others, and none for a report without them", async () => {
    const sent = await post([
      {
        ...SESSION,
        session_id: "conv-miss",
        covariate: 8_000,
        cache_misses: { after_gate_rewrite: 42_000, other: 8_000 },
      },
      { ...SESSION, session_id: "conv-plain" },
    ]);
    expect(sent.body.results).toEqual([
      { status: "accepted", repeated: false },
      { status: "accepted", repeated: false },
    ]);
    expect(await storedMisses("conv-miss")).toEqual({ missed_after_rewrite: 42_000, missed_other: 8_000 });
    expect(await storedMisses("conv-plain")).toEqual({ missed_after_rewrite: null, missed_other: null });
  });

  it("shows the misses after the gate's rewrites apart from the rest in the savings report, over the bills that sent them", async () => {
    await decide({ ...GATE, session_id: "conv-r1", tool_name: "web_fetch" });
    await post([
      { ...SESSION, session_id: "conv-r1", cache_misses: { after_gate_rewrite: 42_000, other: 8_000 } },
      { ...SESSION, session_id: "conv-r2", cache_misses: { after_gate_rewrite: 0, other: 300 } },
      { ...SESSION, session_id: "conv-r3" },
    ]);
    const savings = async (query = "") =>
      (await (await callWorker(`/v1/savings${query}`, { key: "agents-prod" })).json<Record<string, any>>())
        .cache_misses;
    expect(await savings()).toEqual({ sessions: 2, after_gate_rewrite: 42_000, other: 8_300 });
    // For a tool: the bills of sessions with a decision about it.
    expect(await savings("?tool_name=web_fetch")).toEqual({ sessions: 1, after_gate_rewrite: 42_000, other: 8_000 });
    expect(await savings("?tool_name=grep")).toEqual({ sessions: 0, after_gate_rewrite: 0, other: 0 });
  });

  it("takes the same misses again as a repeat, and other misses, or none, as a conflict", async () => {
    const item = { ...SESSION, session_id: "conv-m2", cache_misses: { after_gate_rewrite: 0, other: 300 } };
    await post([item]);
    expect((await post([item])).body.results[0]).toEqual({ status: "accepted", repeated: true });
    const other = { ...item, cache_misses: { after_gate_rewrite: 300, other: 0 } };
    expect((await post([other])).body.results[0].status).toBe("conflict");
    expect((await post([{ ...SESSION, session_id: "conv-m2" }])).body.results[0].status).toBe("conflict");
  });

  it("answers invalid naming the field for misses that are not counts, or an object without both", async () => {
    const { status, body } = await post([
      { ...SESSION, session_id: "a", cache_misses: { after_gate_rewrite: -1, other: 0 } },
      { ...SESSION, session_id: "b", cache_misses: { after_gate_rewrite: 0, other: 1.5 } },
      { ...SESSION, session_id: "c", cache_misses: { other: 0 } },
      { ...SESSION, session_id: "d", cache_misses: 12 },
      { ...SESSION, session_id: "e", cache_misses: { after_gate_rewrite: 0, other: 0, why: "x" } },
    ]);
    expect(status).toBe(200);
    const paths = body.results.map((r: Record<string, any>) => r.issues.map((i: { path: string }) => i.path));
    expect(body.results.every((r: Record<string, any>) => r.status === "invalid")).toBe(true);
    expect(paths).toEqual([
      ["items.0.cache_misses.after_gate_rewrite"],
      ["items.1.cache_misses.other"],
      ["items.2.cache_misses.after_gate_rewrite"],
      ["items.3.cache_misses"],
      ["items.4.cache_misses.why"],
    ]);
  });
});
