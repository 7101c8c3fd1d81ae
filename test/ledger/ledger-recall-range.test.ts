import { evictDurableObject, reset, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerShard, shardOfDecisionId } from "../../src/ledger";
import { MIGRATIONS } from "../../src/ledger/shard/migrations";
import { forgetPricing } from "../../src/storage/read";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// The savings report's recall range for the proxy's observed decisions (docs/design/learning.md §8,
// docs/design/proxy.md §6): low = charged recalls ÷ n, high = any detection ÷ n, over fired observed
// decisions with a priced outcome. The expected figures are counted by hand from the table below.

const TENANT = "default";

/** A decision that fires under cache_aware pricing with no holdout (Example R1 at h 20). */
const R1 = {
  model_name: "claude-opus-4-6",
  output_tokens: 20_000,
  horizon: 20,
  recall_probability: 0.3,
  context_tokens: 60_000,
  cache_hit_rate: 0.9,
  offload_at: "retroactive",
  suffix_tokens: 30_000,
};

/**
 * The known set: each row a fired decision and what its outcome sent. `high` undefined is an
 * existing client's outcome that sends only `recalled`: its range is one point.
 *
 *   tool            recalled  recalled_high   low  high   counted
 *   observed:Read   true      true            1    1      yes
 *   observed:Read   false     true            0    1      yes
 *   observed:Read   false     false           0    0      yes
 *   observed:Bash   true      (not sent)      1    1      yes
 *   observed:Bash   false     true            0    1      yes
 *   Read            false     true            –    –      no: not observed
 *
 * Tenant: n 5, low 2/5, high 4/5. observed:Read: n 3, low 1/3, high 2/3. observed:Bash: n 2, low 1/2, high 2/2.
 */
const TABLE: { tool: string; recalled: boolean; high?: boolean }[] = [
  { tool: "observed:Read", recalled: true, high: true },
  { tool: "observed:Read", recalled: false, high: true },
  { tool: "observed:Read", recalled: false, high: false },
  { tool: "observed:Bash", recalled: true },
  { tool: "observed:Bash", recalled: false, high: true },
  { tool: "Read", recalled: false, high: true },
];

async function call(path: string, json: unknown) {
  const res = await callWorker(path, { json });
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

async function decide(tool: string, session: string): Promise<string> {
  const answer = await call("/v1/gate", { ...R1, tool_name: tool, session_id: session });
  expect(answer.fire).toBe(true);
  return answer.decision_id;
}

async function recallRange(query = "") {
  const res = await callWorker(`/v1/savings${query}`);
  expect(res.status).toBe(200);
  return (await res.json<Record<string, any>>()).recall_range;
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await env.PRICING.put("config:gate", JSON.stringify({ pricing_mode: "cache_aware", holdout_fraction: 0 }));
  forgetPricing();
});

describe("the savings report's recall range for observed decisions", () => {
  it("counts charged recalls as the low end and any detection as the high end, per tenant and per tool, as the hand table says", async () => {
    const ids: string[] = [];
    for (const [i, row] of TABLE.entries()) ids.push(await decide(row.tool, `range-${i}`));
    const outcomes = await call("/v1/outcomes", {
      items: TABLE.map((row, i) => ({
        decision_id: ids[i],
        turns_after: 4,
        recalled: row.recalled,
        cached_turns: 4,
        ...(row.high === undefined ? {} : { recalled_high: row.high }),
      })),
    });
    expect(outcomes.results.map((r: { status: string }) => r.status)).toEqual(TABLE.map(() => "accepted"));
    // Each session's bill, so the holdout table has a row per tool.
    const bills = await call("/v1/sessions", {
      items: TABLE.map((_row, i) => ({
        session_id: `range-${i}`,
        model_name: R1.model_name,
        turns: 5,
        usage: { input_tokens: 1_000, output_tokens: 100 },
      })),
    });
    expect(bills.results.map((r: { status: string }) => r.status)).toEqual(TABLE.map(() => "accepted"));

    expect(await recallRange()).toEqual({ n: 5, low: 2 / 5, high: 4 / 5 });
    expect(await recallRange("?tool_name=observed:Read")).toEqual({ n: 3, low: 1 / 3, high: 2 / 3 });
    expect(await recallRange("?tool_name=observed:Bash")).toEqual({ n: 2, low: 1 / 2, high: 1 });
    // A client's own tool is not observed: it has no range, and its recall figure is its charged one.
    expect(await recallRange("?tool_name=Read")).toEqual({ n: 0, low: null, high: null });
    const report = await (await callWorker("/v1/savings")).json<Record<string, any>>();
    expect(report.recall.realized).toBe(2 / 6);
    // Each tool's row in the holdout table carries its own range; a tool the client named has none.
    const rows = Object.fromEntries(
      report.holdout.tools.map((t: { tool_name: string; recall_range: unknown }) => [t.tool_name, t.recall_range]),
    );
    expect(rows).toEqual({
      "observed:Bash": { n: 2, low: 1 / 2, high: 1 },
      "observed:Read": { n: 3, low: 1 / 3, high: 2 / 3 },
      Read: null,
    });
  });

  it("says so when an outcome's high end is below its low end, naming recalled_high", async () => {
    const id = await decide("observed:Read", "range-bad");
    const answer = await call("/v1/outcomes", {
      items: [{ decision_id: id, turns_after: 2, recalled: true, recalled_high: false }],
    });
    expect(answer.results[0].status).toBe("invalid");
    expect(answer.results[0].issues).toEqual([
      {
        path: "items.0.recalled_high",
        message: "must be true when recalled is: the high end counts every recall the low end does",
      },
    ]);
  });

  it("refuses a high end for a decision that did not fire, naming recalled_high", async () => {
    // Too small to pay at one turn: the gate keeps it.
    const small = { ...R1, output_tokens: 300, horizon: 1 };
    const answer = await call("/v1/gate", { ...small, tool_name: "observed:Read", session_id: "range-kept" });
    expect(answer.fire).toBe(false);
    const reported = await call("/v1/outcomes", {
      items: [{ decision_id: answer.decision_id, turns_after: 2, recalled: false, recalled_high: true }],
    });
    expect(reported.results[0].status).toBe("invalid");
    expect(reported.results[0].message).toContain("recalled_high");
  });
});

describe("migration 12: a shard from before the recall range", () => {
  it("gains the column and the rollups' range, reading an older outcome's one flag as both ends", async () => {
    const id = await decide("observed:Read", "range-old");
    const shard = ledgerShard(env.LEDGER, TENANT, shardOfDecisionId(id)!);
    // Roll the shard back to schema 11, as the worker before the range left it, with one outcome stored then.
    await call("/v1/outcomes", { items: [{ decision_id: id, turns_after: 3, recalled: true }] });
    await runInDurableObject(shard, (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("ALTER TABLE outcomes DROP COLUMN recalled_high");
      for (const column of ["obs_fwo", "obs_recalled", "obs_recalled_high"])
        sql.exec(`ALTER TABLE rollups DROP COLUMN ${column}`);
      sql.exec("UPDATE meta SET value = '11' WHERE key = 'schema_version'");
    });
    await evictDurableObject(shard);
    // A second observed decision after the upgrade, with both ends sent.
    const later = await decide("observed:Read", "range-new");
    await call("/v1/outcomes", {
      items: [{ decision_id: later, turns_after: 3, recalled: false, recalled_high: true }],
    });
    const version = await runInDurableObject(
      shard,
      (_instance, state) =>
        state.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").one().value,
    );
    expect(Number(version)).toBe(MIGRATIONS.length);
    expect(MIGRATIONS.length).toBe(12);
    // The old outcome: recalled, so both ends 1; the new one: low 0, high 1.
    expect(await recallRange()).toEqual({ n: 2, low: 1 / 2, high: 1 });
  });
});
