// The worker bench/ledger-rollup.mjs runs: the real worker, with a ledger
// shard that can fill itself (decisions generated inside the object, so a
// million are written in a minute rather than through a million calls),
// purge on demand and time the raw-row computation beside its own. Never
// deployed.
import worker, { LedgerShard as Shard } from "../src/index";
import {
  formatDecisionId,
  holdoutKey,
  inHoldout,
  type LedgerDecision,
  ledgerShard,
  type PricedSession,
} from "../src/ledger";
import { readRawSums } from "../src/ledger/shard/raw-reads";
import { seeded } from "../build/seeded.mjs";

const HOUR = 3_600_000;
const ROW = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25, cache_write_1h: 10 };
const TOOLS = ["grep", "web.fetch", "read_file", "shell"];
const HOLDOUT = 0.1;

export class LedgerShard extends Shard {
  /**
   * Writes one hour's sessions: `sessions` sessions of `perSession`
   * decisions about two tools each, every decision with an outcome, every
   * session with its bill, through the shard's own write methods.
   */
  async fillHour(tenant: string, hour: number, sessions: number, perSession: number, rawDays: number): Promise<number> {
    const next = seeded(hour / HOUR);
    const decisions: LedgerDecision[] = [];
    const bills: PricedSession[] = [];
    for (let s = 0; s < sessions; s++) {
      const session_id = `bench-${hour}-${s}`;
      const tools = [TOOLS[s % 4] as string, TOOLS[(s + 1) % 4] as string];
      for (let k = 0; k < perSession; k++) {
        const tool_name = tools[k % 2] as string;
        const random = crypto.getRandomValues(new Uint8Array(16));
        const decision_id = formatDecisionId(0, random);
        const holdout = inHoldout(tenant, holdoutKey(session_id, tool_name, decision_id), HOLDOUT);
        decisions.push({
          decision_id,
          at: hour + Math.floor(next() * HOUR),
          session_id,
          tool_name,
          model_name: "claude-opus-4-6",
          priced_as: "claude-opus-4-6",
          pricing_mode: "cache_aware",
          reason_code: holdout ? "holdout" : "net_positive",
          fire: !holdout,
          would_fire: true,
          holdout,
          predicted_net_usd: 0.1 + next() * 0.1,
          inputs: {
            output_tokens: 20_000,
            horizon: 4,
            recall_probability: 0.25,
            cache_hit_rate: 0.9,
            context_tokens: 60_000,
            stub_tokens: 200,
            recall_input_tokens: 2_000,
            recall_output_tokens: 500,
          },
          row: ROW,
        });
      }
      const cost = 1 + next() * 2;
      bills.push({
        session_id,
        model_name: "claude-opus-4-6",
        priced_as: "claude-opus-4-6",
        turns: 30,
        usage: { input_tokens: 1_000, output_tokens: 500 },
        cost_usd: cost,
        report: JSON.stringify([session_id, cost]),
      });
    }
    await this.record(tenant, decisions, 30, rawDays);
    const outcomes = decisions.map((d) => ({
      decision_id: d.decision_id,
      turns_after: Math.floor(next() * 9),
      recalled: d.fire && next() < 0.25,
      cached_turns: 3,
    }));
    await this.reportOutcomes(
      tenant,
      hour + HOUR - 1,
      outcomes.map((o) => ({ ...o, cached_turns: Math.min(o.cached_turns, o.turns_after) })),
    );
    await this.reportSessions(tenant, hour + HOUR - 1, bills, 30, rawDays);
    return decisions.length;
  }

  /** Runs the retention alarm now: the raw purge and the retention's. */
  async purgeNow(): Promise<void> {
    await this.alarm();
  }

  /** The savings sums as the shard computed them before rollups, over raw rows: for comparison. */
  async rawSums(from: number, to: number): Promise<{ decisions: number; ms: number }> {
    const started = Date.now();
    const sums = readRawSums(this.ctx.storage.sql, { from, to }, 86_400_000);
    return { decisions: sums.decisions, ms: Date.now() - started };
  }

  /** The rollups' sums and the verdicts' pairs, each timed inside the object (no RPC; the median of 5), beside rawSums. */
  async rollupSums(
    tenant: string,
    from: number,
    to: number,
  ): Promise<{ decisions: number; sums_ms: number; pairs: number; pairs_ms: number; learning_ms: number }> {
    const median = async (call: () => Promise<unknown>) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        await call();
        times.push(Date.now() - started);
      }
      return times.sort((a, b) => a - b)[2] ?? 0;
    };
    const sums = await this.sums(tenant, { from, to }, 86_400_000);
    const pairs = (await this.toolPairs(tenant, { from, to })).reduce((n, list) => n + list.at.length, 0);
    return {
      decisions: sums.decisions,
      sums_ms: await median(() => this.sums(tenant, { from, to }, 86_400_000)),
      pairs,
      pairs_ms: await median(() => this.toolPairs(tenant, { from, to })),
      // The learner's sums: rollups only, no per-session part.
      learning_ms: await median(() => this.learningSums(tenant, from, to)),
    };
  }
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    const tenant = url.searchParams.get("tenant") ?? "rollup-bench";
    const shard = ledgerShard(env.LEDGER, tenant, 0) as unknown as DurableObjectStub<LedgerShard>;
    const num = (name: string) => Number(url.searchParams.get(name) ?? 0);
    if (url.pathname === "/bench/fill") {
      return Response.json({
        decisions: await shard.fillHour(tenant, num("hour"), num("sessions"), num("per_session"), num("raw_days")),
      });
    }
    if (url.pathname === "/bench/purge") {
      await shard.purgeNow();
      return Response.json({ purged: true });
    }
    if (url.pathname === "/bench/storage") return Response.json(await shard.storage());
    if (url.pathname === "/bench/raw-sums") return Response.json(await shard.rawSums(num("from"), num("to")));
    if (url.pathname === "/bench/rollup-sums")
      return Response.json(await shard.rollupSums(tenant, num("from"), num("to")));
    return worker.fetch(request, env, ctx);
  },
};
