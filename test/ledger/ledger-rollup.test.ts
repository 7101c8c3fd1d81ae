import { env } from "cloudflare:workers";
import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ledgerShard } from "../../src/ledger";
import type { SumsFilter } from "../../src/ledger/shard/sql";
import { planWindow } from "../../src/ledger/shard/window";
import { close, fromRawRows, fromRollups, rollupWorld, write } from "../support/ledger-rollup-fixtures";

const HOUR = 3_600_000;
const DAY = 86_400_000;
let tenants = 0;
const freshTenant = () => `rollup-test-${++tenants}-${Date.now()}`;

describe("the ledger's hourly rollups", () => {
  const tenant = freshTenant();
  const now = Date.now();
  const start = now - (now % HOUR) - 5 * DAY;
  const world = rollupWorld(2026, start, 5 * 24 - 2, 400);

  beforeAll(async () => {
    await write(tenant, world);
  }, 120_000);

  const windows: [string, SumsFilter, number][] = [
    ["the whole ledger, by day", { from: 0, to: now + HOUR }, DAY],
    [
      "a window starting and ending inside hours, by hour",
      { from: start + 7 * HOUR + 1_234_567, to: start + 75 * HOUR + 98_765 },
      HOUR,
    ],
    ["one tool", { from: start, to: now, tool_name: "read_file" }, HOUR],
    [
      "one model, by its requested name or the one that priced it",
      { from: start + 30 * 60_000, to: now, model: "claude-opus-4-6" },
      DAY,
    ],
    ["one tool and model", { from: start, to: now, tool_name: "grep", model: "claude-sonnet-4-5" }, DAY],
    [
      "a day starting and ending inside hours, by minute",
      { from: start + 20 * HOUR + 600_000, to: start + 44 * HOUR - 600_000 },
      60_000,
    ],
  ];

  it.each(windows)(
    "gives every figure of the report and the learner as the raw rows do: %s",
    async (_name, filter, bucket) => {
      const [rolled, raw] = await Promise.all([
        fromRollups(tenant, filter, bucket),
        fromRawRows(tenant, filter, bucket),
      ]);
      // The data must exercise the figures, not compare zeros.
      expect(raw.sums.fired_with_outcome).toBeGreaterThan(5);
      expect(raw.sums.clusters.gap.clusters).toBeGreaterThan(2);
      expect(raw.pairs.length).toBeGreaterThan(2);
      if (filter.tool_name === undefined && filter.model === undefined)
        expect(raw.sums.observed_recall.high).toBeGreaterThan(raw.sums.observed_recall.low);
      expect(raw.learning.length).toBeGreaterThan(0);
      // p per size band too (band_rollups): the world's outputs of 5,000–35,000 tokens fill two bands.
      const bands = new Set(raw.learning.flatMap((r) => Object.keys(r.bands ?? {})));
      expect([...bands].sort()).toEqual(["2k-10k", "ge10k"]);
      expect(close(rolled.sums, raw.sums)).toEqual([]);
      expect(close(rolled.figures, raw.figures)).toEqual([]);
      // The pairs, their arms and costs are read, not summed: exactly equal.
      expect(rolled.pairs).toEqual(raw.pairs);
      expect(close(rolled.holdout, raw.holdout)).toEqual([]);
      // The learner's sums are counts and sums of whole turns: exactly equal.
      expect(rolled.learning).toEqual(raw.learning);
      expect(close(rolled.nets, raw.nets)).toEqual([]);
    },
  );

  it("is tested on sessions that span hours, so a session's cluster is summed across rollup hours", () => {
    const hoursOf = new Map<string, Set<number>>();
    for (const d of world.decisions)
      if (d.session_id !== null)
        hoursOf.set(d.session_id, (hoursOf.get(d.session_id) ?? new Set()).add(Math.floor(d.at / HOUR)));
    expect([...hoursOf.values()].filter((h) => h.size > 1).length).toBeGreaterThan(50);
  });
});

describe("the raw window", () => {
  it("purges raw rows past ledger_raw_days, and the report over the retention keeps every figure", async () => {
    const tenant = freshTenant();
    const now = Date.now();
    const start = now - (now % HOUR) - 6 * DAY;
    await write(tenant, rollupWorld(7, start, 6 * 24 - 2, 300), 2);
    const retention = { from: now - 30 * DAY, to: now + 1 };
    const learning = { from: now - 7 * DAY, to: now + 1 };
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const before = await fromRollups(tenant, retention, DAY);
    const learnedBefore = await shard.learningSums(tenant, learning.from, learning.to);
    const held = await shard.storage();

    expect(await runDurableObjectAlarm(shard)).toBe(true);
    const after = await shard.storage();
    // Only the last two days' raw rows (from the hour they start) are left; rollups and summaries all stay.
    expect(after.decisions).toBeLessThan(held.decisions / 2);
    expect(after.decisions).toBeGreaterThan(0);
    expect(after.outcomes).toBeLessThan(held.outcomes / 2);
    expect({ rollups: after.rollups, session_tools: after.session_tools, sessions: after.sessions }).toEqual({
      rollups: held.rollups,
      session_tools: held.session_tools,
      sessions: held.sessions,
    });
    const oldest = await runInDurableObject(shard, (_i, state) =>
      Number(state.storage.sql.exec("SELECT MIN(at) AS at FROM decisions").one().at),
    );
    expect(oldest).toBeGreaterThanOrEqual(now - 2 * DAY - HOUR);

    // The same sources, whole hours from the rollups: not merely close, equal.
    expect(await fromRollups(tenant, retention, DAY)).toEqual(before);
    expect(await shard.learningSums(tenant, learning.from, learning.to)).toEqual(learnedBefore);
  }, 120_000);

  it("counts a window's partial hour whole once its raw rows are gone", async () => {
    const tenant = freshTenant();
    const now = Date.now();
    const hour = now - (now % HOUR) - 4 * DAY;
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    const world = rollupWorld(11, hour, 1, 40);
    await write(tenant, world, 2);
    const inside = { from: hour + HOUR / 2, to: hour + HOUR };
    const later = world.decisions.filter((d) => d.at >= inside.from && d.at < hour + HOUR).length;
    expect((await shard.sums(tenant, inside, HOUR)).decisions).toBe(later);
    await runDurableObjectAlarm(shard);
    expect((await shard.sums(tenant, inside, HOUR)).decisions).toBe(
      world.decisions.filter((d) => d.at < hour + HOUR).length,
    );
  }, 60_000);
});

describe("migration 4", () => {
  it("backfills the rollups of a shard written before them from its raw rows", async () => {
    const tenant = freshTenant();
    const now = Date.now();
    const start = now - (now % HOUR) - 3 * DAY;
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await write(tenant, rollupWorld(5, start, 3 * 24, 150));
    const filter = { from: start, to: now };
    const before = await fromRollups(tenant, filter, HOUR);
    // Roll the shard back to schema 3, as the worker before rollups left it, then start it again.
    await runInDurableObject(shard, (_instance, state) => {
      state.storage.sql.exec("DROP TABLE rollups");
      state.storage.sql.exec("DROP TABLE session_tools");
      state.storage.sql.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'");
    });
    await evictDurableObject(shard);
    const after = await fromRollups(tenant, filter, HOUR);
    expect(after.sums.decisions).toBeGreaterThan(500);
    expect(close(after, before)).toEqual([]);
    expect(close(after, await fromRawRows(tenant, filter, HOUR))).toEqual([]);
  }, 120_000);
});

describe("migration 6", () => {
  it("backfills p per size band of a shard written before band_rollups from its raw rows", async () => {
    const tenant = freshTenant();
    const now = Date.now();
    const start = now - (now % HOUR) - 2 * DAY;
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await write(tenant, rollupWorld(6, start, 2 * 24, 120));
    const filter = { from: start, to: now };
    const before = (await fromRollups(tenant, filter, HOUR)).learning;
    expect(before.some((r) => r.bands !== undefined)).toBe(true);
    // Roll the shard back to schema 5, as the worker before size bands left it, then start it again.
    await runInDurableObject(shard, (_instance, state) => {
      state.storage.sql.exec("DROP TABLE band_rollups");
      state.storage.sql.exec("UPDATE meta SET value = '5' WHERE key = 'schema_version'");
    });
    await evictDurableObject(shard);
    const after = (await fromRollups(tenant, filter, HOUR)).learning;
    expect(after).toEqual(before);
    expect(after).toEqual((await fromRawRows(tenant, filter, HOUR)).learning);
  }, 120_000);
});

describe("how a window is read", () => {
  const H = HOUR;
  it("reads whole hours from rollups and the partial ends from raw rows while they are kept", () => {
    expect(planWindow(1.5 * H, 4.25 * H, 0)).toEqual({
      hours: { from: 2 * H, to: 4 * H },
      raw: [
        { from: 1.5 * H, to: 2 * H },
        { from: 4 * H, to: 4.25 * H },
      ],
    });
    expect(planWindow(2 * H, 4 * H, 0)).toEqual({ hours: { from: 2 * H, to: 4 * H }, raw: [] });
    expect(planWindow(2.25 * H, 2.5 * H, 0)).toEqual({
      hours: { from: 2 * H, to: 2 * H },
      raw: [{ from: 2.25 * H, to: 2.5 * H }],
    });
  });

  it("takes a partial hour whole once its raw rows are gone, and keeps reading the kept end raw", () => {
    expect(planWindow(1.5 * H, 4.25 * H, 3 * H)).toEqual({
      hours: { from: 1 * H, to: 4 * H },
      raw: [{ from: 4 * H, to: 4.25 * H }],
    });
    expect(planWindow(1.5 * H, 4.25 * H, 10 * H)).toEqual({ hours: { from: 1 * H, to: 5 * H }, raw: [] });
    expect(planWindow(2.25 * H, 2.5 * H, 3 * H)).toEqual({ hours: { from: 2 * H, to: 3 * H }, raw: [] });
  });

  it("reads nothing for an empty window", () => {
    expect(planWindow(5 * H, 5 * H, 0)).toEqual({ hours: { from: 5 * H, to: 5 * H }, raw: [] });
  });
});
