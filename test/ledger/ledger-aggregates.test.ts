import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { confidenceSequence, holdoutFigures, ledgerShard, type ToolSessionRow, toolVerdicts } from "../../src/ledger";
import { mergePairs, packRows, rowsOfPairs } from "../../src/ledger/stats/pairs";
import { readRawToolSessions } from "../../src/ledger/shard/raw-reads";
import type { SumsFilter } from "../../src/ledger/shard/sql";
import { seeded } from "../../build/seeded.mjs";
import { decisionIdOf, seedDecision } from "../support/ledger-fixtures";
import { close, fromRawRows, fromRollups, rollupWorld, write } from "../support/ledger-rollup-fixtures";

const HOUR = 3_600_000;
const DAY = 86_400_000;
let tenants = 0;
const freshTenant = () => `aggregates-test-${++tenants}-${Date.now()}`;
const SCHEMA_5 = ["session_clusters", "cluster_spans", "bill_hours", "tool_chunks"];

/** The schema-5 tables as the shard keeps them, and as they come out of a backfill from scratch. */
async function spanTables(tenant: string) {
  return runInDurableObject(ledgerShard(env.LEDGER, tenant, 0), (_i, state) => {
    const sql = state.storage.sql;
    const spans = sql.exec("SELECT * FROM cluster_spans ORDER BY first_hour, last_hour").toArray();
    const clusters = sql.exec("SELECT * FROM session_clusters ORDER BY session_key").toArray();
    const fresh = sql
      .exec(`SELECT session_key, MIN(hour) AS first_hour, MAX(hour) AS last_hour, TOTAL(g_n) AS g_n, TOTAL(g_s) AS g_s, TOTAL(r_s) AS r_s,
      TOTAL(h_n) AS h_n, TOTAL(h_s) AS h_s, TOTAL(q_n) AS q_n, TOTAL(q_s) AS q_s FROM session_tools GROUP BY session_key ORDER BY session_key`)
      .toArray();
    return { spans, clusters, fresh };
  });
}

/** Rolls a shard back to schema 4 (as the worker before these tables left it) and starts it again: migration 5 backfills. */
async function rollBackTo4(tenant: string): Promise<void> {
  const shard = ledgerShard(env.LEDGER, tenant, 0);
  await runInDurableObject(shard, (_i, state) => {
    for (const table of SCHEMA_5) state.storage.sql.exec(`DROP TABLE ${table}`);
    state.storage.sql.exec("UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  });
  await evictDurableObject(shard);
}

describe("the per-session aggregates (schema 5)", () => {
  const tenant = freshTenant();
  const now = Date.now();
  const start = now - (now % HOUR) - 4 * DAY;
  const world = rollupWorld(2027, start, 4 * 24 - 2, 400);

  beforeAll(async () => {
    await write(tenant, world);
  }, 120_000);

  it("keep each session's cluster sums as its summaries add up, and each span's terms as a recomputation gives them", async () => {
    const { spans, clusters, fresh } = await spanTables(tenant);
    expect(clusters).toEqual(fresh);
    const spanned = fresh.filter((c) => Number(c.last_hour) > Number(c.first_hour)).length;
    expect(spanned).toBeGreaterThan(50);
    // Each span's terms, compensated, against one pass over its sessions.
    for (const span of spans) {
      const inside = fresh.filter((c) => c.first_hour === span.first_hour && c.last_hour === span.last_hour);
      expect(Number(span.sessions)).toBe(inside.length);
      const gs = inside.reduce((s, c) => s + Number(c.g_s) ** 2, 0);
      expect(Math.abs(Number(span.gap_cs2) + Number(span.gap_cs2_c) - gs)).toBeLessThanOrEqual(
        1e-12 * Math.max(gs, 1e-300),
      );
      expect(Number(span.hor_g) + Number(span.hor_g_c)).toBe(inside.filter((c) => Number(c.h_n) > 0).length);
    }
  });

  const windows: [string, SumsFilter][] = [
    ["the whole ledger", { from: 0, to: now + HOUR }],
    [
      "a window whose edges cut sessions, inside hours",
      { from: start + 9 * HOUR + 777_777, to: start + 50 * HOUR + 1_111 },
    ],
    ["a window on whole hours that cut sessions", { from: start + 12 * HOUR, to: start + 60 * HOUR }],
    ["one tool", { from: start, to: now, tool_name: "grep" }],
    ["a window inside one hour", { from: start + 30 * HOUR + 60_000, to: start + 30 * HOUR + 2_400_000 }],
  ];

  it.each(windows)("give the report's sums and verdicts as the raw rows do: %s", async (_name, filter) => {
    const [rolled, raw] = await Promise.all([fromRollups(tenant, filter, DAY), fromRawRows(tenant, filter, DAY)]);
    expect(raw.sums.clusters.gap.clusters).toBeGreaterThan(2);
    expect(close(rolled.sums, raw.sums)).toEqual([]);
    expect(close(rolled.figures, raw.figures)).toEqual([]);
    expect(rolled.pairs).toEqual(raw.pairs);
    // As the route reads them: packed, in the shard's report order. The same arithmetic in the same order: the same bits.
    const packed = await ledgerShard(env.LEDGER, tenant, 0).toolPairs(tenant, filter);
    expect(holdoutFigures(packed, 0.3)).toEqual(holdoutFigures(raw.pairs, 0.3));
  });

  it("are backfilled by migration 5 from the summaries and bills a shard holds", async () => {
    const filter = { from: start + 5 * HOUR + 1, to: now };
    const before = await fromRollups(tenant, filter, DAY);
    const held = await spanTables(tenant);
    await rollBackTo4(tenant);
    const after = await spanTables(tenant);
    expect(after.clusters).toEqual(held.clusters);
    expect(after.spans.length).toBe(held.spans.length);
    expect(close(await fromRollups(tenant, filter, DAY), before)).toEqual([]);
  }, 60_000);
});

describe("the retention's purge", () => {
  it("moves the sessions it cuts to the spans of what is left, and keeps bills and pairs as a backfill from scratch gives them", async () => {
    const tenant = freshTenant();
    const now = Date.now();
    const start = now - (now % HOUR) - 5 * DAY;
    const world = rollupWorld(31, start, 5 * 24 - 2, 300);
    await write(tenant, world);
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    // A 3-day retention cuts the world in the middle, through sessions that span hours.
    await shard.record(tenant, [], 3, 3);
    expect(await runDurableObjectAlarm(shard)).toBe(true);
    const retention = { from: now - 3 * DAY, to: now + 1 };
    const purged = await fromRollups(tenant, retention, DAY);
    expect(purged.sums.sessions.n).toBeGreaterThan(50);
    const tables = await spanTables(tenant);
    expect(tables.clusters).toEqual(tables.fresh);
    expect(Math.min(...tables.clusters.map((c) => Number(c.first_hour)))).toBeGreaterThanOrEqual(now - 3 * DAY - HOUR);
    await rollBackTo4(tenant);
    expect(close(await fromRollups(tenant, retention, DAY), purged)).toEqual([]);
  }, 120_000);
});

describe("the packed pairs", () => {
  it("gain a pair and its arm when a billed session's decision arrives after its bill, and its cluster the decision's hour", async () => {
    const tenant = freshTenant();
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const bill = (session_id: string, cost: number) => ({
      session_id,
      model_name: "claude-opus-4-6",
      priced_as: "claude-opus-4-6",
      turns: 3,
      usage: { input_tokens: 1, output_tokens: 1 },
      cost_usd: cost,
      report: `${session_id}/${cost}`,
    });
    await shard.record(
      tenant,
      [seedDecision({ decision_id: decisionIdOf(0, 1), at: 1_000, session_id: "late", tool_name: "grep" })],
      30,
    );
    await shard.reportSessions(tenant, 2_000, [bill("late", 2.5)], 30);
    await shard.record(
      tenant,
      [
        seedDecision({ decision_id: decisionIdOf(0, 2), at: 3_000, session_id: "late", tool_name: "read_file" }),
        seedDecision({
          decision_id: decisionIdOf(0, 3),
          at: HOUR + 5,
          session_id: "late",
          tool_name: "grep",
          holdout: true,
          fire: false,
        }),
      ],
      30,
    );
    const window = { from: 0, to: 4_000_000_000_000 };
    const raw = await runInDurableObject(shard, (_i, state) => readRawToolSessions(state.storage.sql, window));
    expect(rowsOfPairs(await shard.toolPairs(tenant, window))).toEqual(rowsOfPairs(packRows(raw)));
    expect(rowsOfPairs(await shard.toolPairs(tenant, window))).toEqual([
      { tool_name: "grep", session_id: "late", at: 2_000, treated: false, cost: 2.5 },
      { tool_name: "read_file", session_id: "late", at: 2_000, treated: true, cost: 2.5 },
    ]);
    // Its cluster now spans both hours of its decisions.
    const span = await runInDurableObject(shard, (_i, state) =>
      state.storage.sql.exec("SELECT first_hour, last_hour FROM session_clusters WHERE session_key = 'late'").one(),
    );
    expect(span).toEqual({ first_hour: 0, last_hour: HOUR });
  });

  function shardRows(seed: number, n: number): ToolSessionRow[] {
    const next = seeded(seed);
    return Array.from({ length: n }, (_, i) => ({
      tool_name: ["grep", "shell", "web.fetch"][i % 3] as string,
      session_id: `s-${seed}-${Math.floor(next() * 1e6)}`,
      // Few distinct times: bills of one report share theirs, so ties across shards are common.
      at: 1_000 * Math.floor(next() * 40),
      treated: next() > 0.2,
      cost: 1 + next() * 3,
    }));
  }

  it("merge across shards into the report order one list of every row gives", () => {
    const shards = [shardRows(1, 300), shardRows(2, 200), shardRows(3, 1)];
    const merged = mergePairs(shards.map(packRows));
    expect(merged).toEqual(packRows(shards.flat()));
    expect(holdoutFigures(merged, 0.2)).toEqual(holdoutFigures(shards.flat(), 0.2));
  });

  it("give the confidence sequence of the rows, to the bit", () => {
    const rows = shardRows(9, 900);
    const grep = packRows(rows).find((l) => l.tool_name === "grep");
    const ordered = rows
      .filter((r) => r.tool_name === "grep")
      .sort((a, b) => a.at - b.at || (a.session_id < b.session_id ? -1 : 1));
    expect(grep?.at.length).toBe(ordered.length);
    expect(toolVerdicts(rows, 0.2).get("grep")).toEqual(confidenceSequence(ordered, 0.8));
  });
});
