// The worker the ledger benchmark runs: the real worker, plus routes that
// drive one ledger shard directly, so the shard's own capacity is measured
// rather than the gate's. Never deployed.
import worker, { LedgerShard } from "../src/index";
import { formatDecisionId, type LedgerDecision, ledgerShard } from "../src/ledger";

export { LedgerShard };

const ROW = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 };
const TOOLS = ["grep", "web.fetch", "read_file", "shell"];
let counter = 0;

function decision(shard: number): LedgerDecision {
  const random = crypto.getRandomValues(new Uint8Array(16));
  const n = counter++;
  return {
    decision_id: formatDecisionId(shard, random),
    at: Date.now(),
    session_id: `bench-session-${Math.floor(n / 6)}`,
    tool_name: TOOLS[n % TOOLS.length] ?? null,
    model_name: "claude-opus-4-6",
    priced_as: "claude-opus-4-6",
    pricing_mode: "cache_aware",
    reason_code: "net_positive",
    fire: true,
    would_fire: true,
    holdout: false,
    predicted_net_usd: 0.16,
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
  };
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    const tenant = url.searchParams.get("tenant") ?? "bench";
    const stub = ledgerShard(env.LEDGER, tenant, 0);
    if (url.pathname === "/bench/record") {
      // `batch` decisions in one call, as one gate request (or one batch) hands them over; with `outcomes=1` each also gets its outcome.
      const batch = Number(url.searchParams.get("batch") ?? 1);
      const decisions = Array.from({ length: batch }, () => decision(0));
      await stub.record(tenant, decisions, 30);
      if (url.searchParams.get("outcomes") === "1") {
        await stub.reportOutcomes(
          tenant,
          Date.now(),
          decisions.map((d) => ({ decision_id: d.decision_id, turns_after: 4, recalled: false, cached_turns: 3 })),
        );
      }
      return new Response("ok");
    }
    if (url.pathname === "/bench/storage") return Response.json(await stub.storage());
    if (url.pathname === "/bench/sums") {
      return Response.json(await stub.sums(tenant, { from: 0, to: Date.now() + 60_000 }, 86_400_000));
    }
    return worker.fetch(request, env, ctx);
  },
};
