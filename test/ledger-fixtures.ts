import type { LedgerDecision } from "../src/ledger/savings";
import { OPUS } from "./fixtures/rows";

/**
 * The design note's second demonstration as one ledger decision: the seed
 * gate, 12,000 Opus tokens at its priors (h 4, p 0.25, q prior 0.9), no
 * context on the request. It predicts +$0.230375.
 */
export function seedDecision(over: Partial<LedgerDecision> = {}): LedgerDecision {
  return {
    decision_id: `dec_0_${"0".repeat(32)}`,
    at: 1_800_000_000_000,
    session_id: "session-1",
    tool_name: "web.fetch",
    model_name: "claude-opus-4-6",
    priced_as: "claude-opus-4-6",
    pricing_mode: "seed",
    reason_code: "net_positive",
    fire: true,
    would_fire: true,
    holdout: false,
    predicted_net_usd: 0.230375,
    inputs: {
      output_tokens: 12_000,
      horizon: 4,
      recall_probability: 0.25,
      cache_hit_rate: 0.9,
      context_tokens: null,
      stub_tokens: 200,
      recall_input_tokens: 2_000,
      recall_output_tokens: 500,
    },
    row: OPUS,
    ...over,
  };
}

/** A decision id in `shard` whose random part is `n`, for tests that need many distinct ids. */
export function decisionIdOf(shard: number, n: number): string {
  return `dec_${shard}_${n.toString(16).padStart(32, "0")}`;
}
