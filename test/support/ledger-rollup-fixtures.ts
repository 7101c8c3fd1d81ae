import { env } from "cloudflare:workers";
import { LEARNING_BAND_SUMS, withBands, type BandSumsRow } from "../../src/ledger/shard/band-sums";
import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import {
  holdoutFigures,
  type LedgerDecision,
  ledgerShard,
  type OutcomeReport,
  type PricedSession,
  savingsFigures,
  type ToolModelSums,
  type ToolNetRow,
  type ToolSessionRow,
} from "../../src/ledger";
import {
  LEARNING_SUMS,
  TOOL_NETS,
  toolModelSumsOf,
  toolNetOf,
  type LearningSumsRow,
  type ToolNetSqlRow,
} from "../../src/ledger/shard/learning-sums";
import { rowsOfPairs } from "../../src/ledger/stats/pairs";
import { readRawSums, readRawToolSessions } from "../../src/ledger/shard/raw-reads";
import type { SumsFilter } from "../../src/ledger/shard/sql";
import { seeded } from "../../build/seeded.mjs";
import { decisionIdOf, seedDecision } from "./ledger-fixtures";
import { OPUS, SONNET_45 } from "../fixtures/rows";

/**
 * A seeded ledger for the rollup tests: decisions across many hours, tools
 * (and none), models (priced, aliased, unpriced), both arms, fired or not,
 * seed and cache-aware (1-hour writes too); sessions spanning hours and
 * decisions without one; outcomes on most, some sending cached_turns or
 * context_tokens; bills for most sessions.
 */
export interface RollupWorld {
  decisions: LedgerDecision[];
  outcomes: { at: number; item: OutcomeReport }[];
  bills: { at: number; item: PricedSession }[];
}

const HOUR = 3_600_000;
// "observed:Read": the proxy's observed decisions, whose outcomes may send the recall range's high end.
const TOOLS = ["grep", "read_file", "web.fetch", "observed:Read", null] as const;
const MODELS = [
  { model_name: "claude-opus-4-6", priced_as: "claude-opus-4-6", row: OPUS },
  { model_name: "opus-latest", priced_as: "claude-opus-4-6", row: OPUS },
  { model_name: "claude-sonnet-4-5", priced_as: "claude-sonnet-4-5", row: SONNET_45 },
  { model_name: "mystery-model", priced_as: null, row: null },
] as const;

/**
 * `sessions` sessions starting in the `hours` hours from `start` (an hour's
 * start), each with 1–8 decisions over up to 3 hours, plus a decision
 * without a session for every fourth session.
 *
 * @example
 * const world = rollupWorld(2026, Date.now() - 5 * 86_400_000, 100, 200);
 */
export function rollupWorld(seed: number, start: number, hours: number, sessions: number): RollupWorld {
  const next = seeded(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const world: RollupWorld = { decisions: [], outcomes: [], bills: [] };
  let n = 0;
  const decide = (at: number, session_id: string | null, model: (typeof MODELS)[number]) => {
    const tool = pick(TOOLS);
    const holdout = model.row !== null && next() < 0.3;
    const wouldFire = model.row !== null && next() < 0.7;
    const fire = wouldFire && !holdout;
    const cacheAware = next() < 0.5;
    const base = seedDecision().inputs;
    const context = cacheAware ? Math.floor(next() * 200_000) : null;
    const d = seedDecision({
      decision_id: decisionIdOf(0, ++n),
      at,
      session_id,
      tool_name: tool,
      model_name: model.model_name,
      priced_as: model.priced_as,
      pricing_mode: cacheAware ? "cache_aware" : "seed",
      reason_code: model.row === null ? "unpriced" : holdout ? "holdout" : fire ? "net_positive" : "net_not_positive",
      fire,
      would_fire: wouldFire,
      holdout,
      predicted_net_usd: model.row === null ? 0 : (next() - 0.3) * 0.4,
      inputs: {
        ...base,
        output_tokens: 5_000 + Math.floor(next() * 30_000),
        horizon: 1 + Math.floor(next() * 8),
        recall_probability: 0.05 + next() * 0.5,
        cache_hit_rate: 0.5 + next() * 0.5,
        context_tokens: context,
        ...(cacheAware && next() < 0.3 ? { cache_ttl: "1h" as const } : {}),
      },
      row: model.row,
    });
    world.decisions.push(d);
    if (next() < 0.8) {
      const turns = Math.floor(next() * 12);
      const item: OutcomeReport = {
        decision_id: d.decision_id,
        turns_after: turns,
        recalled: fire && next() < 0.4,
        // Some observed outcomes send a high end above their low one (the rest leave it out: low = high).
        ...(tool === "observed:Read" && fire && turns % 2 === 0 ? { recalled_high: true } : {}),
        ...(next() < 0.6 ? { cached_turns: Math.floor(next() * (turns + 1)) } : {}),
        ...(context === null && next() < 0.5 ? { context_tokens: Math.floor(next() * 150_000) } : {}),
      };
      world.outcomes.push({ at: at + Math.floor(next() * 2 * HOUR), item });
    }
  };
  for (let s = 0; s < sessions; s++) {
    const first = start + Math.floor(next() * hours) * HOUR + Math.floor(next() * HOUR);
    const model = pick(MODELS);
    const id = `rollup-session-${seed}-${s}`;
    const count = 1 + Math.floor(next() * 8);
    let at = first;
    for (let k = 0; k < count; k++) {
      decide(at, id, model);
      at += Math.floor(next() * 40 * 60_000);
    }
    if (s % 4 === 0) decide(first + Math.floor(next() * HOUR), null, model);
    if (model.row !== null && next() < 0.85) {
      const cost = 0.5 + next() * 3;
      const item: PricedSession = {
        session_id: id,
        model_name: model.model_name,
        priced_as: model.priced_as,
        turns: count + 4,
        usage: { input_tokens: 1_000, output_tokens: 500 },
        cost_usd: cost,
        report: JSON.stringify([id, cost]),
        // Two sessions in three report a covariate (drawn from nothing, so the world's other draws stay as they were).
        ...(s % 3 === 0 ? {} : { covariate: Math.round(cost * 100_000) + s }),
      };
      world.bills.push({ at: at + Math.floor(next() * HOUR), item });
    }
  }
  return world;
}

/**
 * Whether two report values are equal: the same shape, the same strings,
 * nulls and counts, and numbers equal to 1e-12 relative. The rollups add a
 * decision's terms into its hour as it arrives and the report adds the
 * hours; the raw computation adds the decisions in one pass (SQLite's TOTAL,
 * which compensates its rounding). The order of the additions differs, so
 * the last bits of a real sum may; every integer count is exact.
 */
export function close(a: unknown, b: unknown, path = "$"): string[] {
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isInteger(a) && Number.isInteger(b) && Math.abs(a) < 2 ** 53)
      return a === b ? [] : [`${path}: ${a} ≠ ${b}`];
    return Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b)) ? [] : [`${path}: ${a} ≠ ${b}`];
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [`${path}: length ${a.length} ≠ ${b.length}`];
    return a.flatMap((x, i) => close(x, b[i], `${path}[${i}]`));
  }
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      close((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  return Object.is(a, b) ? [] : [`${path}: ${String(a)} ≠ ${String(b)}`];
}

export async function write(tenant: string, world: RollupWorld, rawDays?: number): Promise<void> {
  const shard = ledgerShard(env.LEDGER, tenant, 0);
  for (let i = 0; i < world.decisions.length; i += 100)
    await shard.record(tenant, world.decisions.slice(i, i + 100), 30, rawDays);
  for (let i = 0; i < world.outcomes.length; i += 50) {
    const chunk = world.outcomes.slice(i, i + 50);
    const results = await shard.reportOutcomes(
      tenant,
      chunk[0]?.at ?? 0,
      chunk.map((o) => o.item),
    );
    expect(results.every((r) => r.status === "accepted")).toBe(true);
  }
  for (let i = 0; i < world.bills.length; i += 50) {
    const chunk = world.bills.slice(i, i + 50);
    await shard.reportSessions(
      tenant,
      chunk[0]?.at ?? 0,
      chunk.map((b) => b.item),
      30,
      rawDays,
    );
  }
}

const byKey = <T>(rows: T[], key: (r: T) => string) =>
  [...rows].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
const pairKey = (r: ToolSessionRow) => `${r.tool_name}/${r.session_id}`;

/** Everything the savings report and the learner read, from the shard's rollups (its own reads). */
export async function fromRollups(tenant: string, filter: SumsFilter, bucket: number) {
  const shard = ledgerShard(env.LEDGER, tenant, 0);
  const sums = await shard.sums(tenant, filter, bucket);
  const pairs = byKey(rowsOfPairs(await shard.toolPairs(tenant, filter)), pairKey);
  const learning = byKey(await shard.learningSums(tenant, filter.from, filter.to), (r) => `${r.tool}/${r.model}`);
  const nets = byKey(await shard.toolNets(tenant, filter.from, filter.to), (r) => `${r.tool_name}/${r.session_id}`);
  return {
    sums,
    figures: savingsFigures(sums),
    holdout: holdoutFigures(pairs, 0.3),
    pairs,
    learning,
    nets,
  };
}

/** The same, computed as before rollups: today's queries over the raw rows. */
export async function fromRawRows(tenant: string, filter: SumsFilter, bucket: number) {
  return runInDurableObject(ledgerShard(env.LEDGER, tenant, 0), (_instance, state) => {
    const sql = state.storage.sql;
    const sums = readRawSums(sql, filter, bucket);
    const pairs = byKey(readRawToolSessions(sql, filter), pairKey);
    const learning: ToolModelSums[] = byKey(
      withBands(
        sql.exec<LearningSumsRow>(LEARNING_SUMS, filter.from, filter.to).toArray().map(toolModelSumsOf),
        sql.exec<BandSumsRow>(LEARNING_BAND_SUMS, filter.from, filter.to).toArray(),
      ),
      (r) => `${r.tool}/${r.model}`,
    );
    const nets: ToolNetRow[] = byKey(
      sql.exec<ToolNetSqlRow>(TOOL_NETS, filter.from, filter.to).toArray().map(toolNetOf),
      (r) => `${r.tool_name}/${r.session_id}`,
    );
    return {
      sums,
      figures: savingsFigures(sums),
      holdout: holdoutFigures(pairs, 0.3),
      pairs,
      learning,
      nets,
    };
  });
}
