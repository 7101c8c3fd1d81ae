// The worker the queued-writes benchmark runs (bench/ledger-queue.mjs): the
// deployed entry (its fetch and its queue consumer), plus routes that fill
// LEDGER_QUEUE as the gate does and read one shard's count. Never deployed.
import worker from "../src/index";
import { chunkMessages, formatDecisionId, type LedgerDecision, ledgerMessage, ledgerShard } from "../src/ledger";

export { LedgerShard } from "../src/index";

const ROW = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25 };

function decision(n: number): LedgerDecision {
  return {
    decision_id: formatDecisionId(0, crypto.getRandomValues(new Uint8Array(16))),
    at: Date.now(),
    session_id: `bench-session-${Math.floor(n / 6)}`,
    tool_name: "read_file",
    model_name: "claude-opus-4-6",
    priced_as: "claude-opus-4-6",
    pricing_mode: "seed",
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
      context_tokens: null,
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
    if (url.pathname === "/bench/enqueue") {
      // `n` single-decision messages of shard 0, in the sendBatch calls the gate would make for them.
      const n = Number(url.searchParams.get("n") ?? 100);
      const messages = Array.from({ length: n }, (_, i) => ledgerMessage(tenant, decision(i), 30));
      for (const batch of chunkMessages(messages).batches)
        await env.LEDGER_QUEUE.sendBatch(batch.map((body) => ({ body, contentType: "json" as const })));
      return new Response("ok");
    }
    if (url.pathname === "/bench/storage") return Response.json(await ledgerShard(env.LEDGER, tenant, 0).storage());
    return worker.fetch(request as Parameters<typeof worker.fetch>[0], env, ctx);
  },
  queue: worker.queue,
};
