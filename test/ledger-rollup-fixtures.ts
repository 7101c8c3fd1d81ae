import type { LedgerDecision, OutcomeReport } from "../src/ledger/savings";
import type { PricedSession } from "../src/ledger/types";
import { seeded } from "../scripts/simulate/world";
import { decisionIdOf, seedDecision } from "./ledger-fixtures";
import { OPUS, SONNET_45 } from "./fixtures/rows";

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
const TOOLS = ["grep", "read_file", "web.fetch", null] as const;
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
      };
      world.bills.push({ at: at + Math.floor(next() * HOUR), item });
    }
  }
  return world;
}
