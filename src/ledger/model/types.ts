import type { CachePriceRates, CacheTtl, OffloadAt, PlanSegment, PricingMode, RecallPlacement } from "../../gate";

/** What one reported item came to. */
export type ItemStatus = "accepted" | "unknown_decision" | "conflict" | "invalid";

/** One item's result, as a shard (or the route, for an item that fails its schema) answers it. */
export interface ItemResult {
  status: ItemStatus;
  /** Set on `accepted`: whether this exact report was already stored. */
  repeated?: boolean;
  /** Set (true) on an accepted outcome whose decision has not reached its shard yet: it is applied when the decision is. */
  pending?: boolean;
  message?: string;
  issues?: { path: string; message: string }[];
}

/** A session's report, priced by the route from its model's row, as a shard stores it. */
export interface PricedSession {
  session_id: string;
  model_name: string;
  priced_as: string;
  turns: number;
  usage: SessionUsage;
  cost_usd: number;
  /** The report's content in one fixed key order, to tell a repeat from a conflict. */
  report: string;
  /** The report's `covariate`, when it had one (the breaker's CUPED adjustment). */
  covariate?: number;
  /** The report's diagnosed cache misses, when it had them: after one of the gate's rewrites, and the rest. */
  cache_misses?: { after_gate_rewrite: number; other: number };
}

/**
 * One (session, tool) pair for the per-tool verdicts (docs/design/ledger.md §2): a
 * session with a bill in the window and a tool it had a decision about.
 * `tool_name` is `""` for decisions without one.
 */
export interface ToolSessionRow {
  tool_name: string;
  session_id: string;
  /** When the session's bill was reported (ms since the epoch): the sequence's order. */
  at: number;
  /** The tool's arm in this session: true when treated, false when held out. */
  treated: boolean;
  /** The session's priced cost (USD). */
  cost: number;
  /**
   * The session's reported covariate (POST /v1/sessions `covariate`), which the breaker's
   * CUPED adjustment regresses the cost on; null or absent when the report had none.
   */
  covariate?: number | null;
}

/** The inputs a decision was priced with, every prior filled in. */
export interface DecisionInputs {
  output_tokens: number;
  horizon: number;
  recall_probability: number;
  /** q: the request's in cache_aware mode, the config prior in seed mode. */
  cache_hit_rate: number;
  /** P as the request gave it (cache_aware only); null when it did not. */
  context_tokens: number | null;
  stub_tokens: number;
  recall_input_tokens: number;
  recall_output_tokens: number;
  /** Where the output was stubbed, and the tokens after it then (cache_aware); absent: on entry. */
  offload_at?: OffloadAt;
  suffix_tokens?: number;
  /** The cache write the decision priced (cache_aware); absent: the 5-minute write. */
  cache_ttl?: CacheTtl;
  /**
   * Where the decision priced the recall hop's original (docs/design/economics.md §4.2): set only
   * for "in_place"; absent: appended, the default, so a record that never named it is unchanged.
   */
  recall_placement?: RecallPlacement;
}

/** One decision as the ledger keeps it, with the row that priced it. */
export interface LedgerDecision {
  decision_id: string;
  /** Milliseconds since the epoch, as the route saw it. */
  at: number;
  session_id: string | null;
  tool_name: string | null;
  model_name: string;
  priced_as: string | null;
  pricing_mode: PricingMode;
  reason_code: string;
  fire: boolean;
  /** What the gate would have answered outside the holdout (equal to `fire` outside it). */
  would_fire: boolean;
  holdout: boolean;
  predicted_net_usd: number;
  inputs: DecisionInputs;
  /** The pricing row that priced it; null when none did (below the threshold, unpriced). */
  row: CachePriceRates | null;
  /** Set on a clearing plan's decision: what it stubbed and the history it stubbed it in. */
  plan?: LedgerPlan;
}

/** What an agent reports after a decision. */
export interface OutcomeReport {
  decision_id: string;
  /** How many more turns the session ran after the decision: the realized horizon. */
  turns_after: number;
  /** Whether the stub was recalled (false for a decision that did not fire). */
  recalled: boolean;
  /**
   * The high end of the recall evidence (docs/design/learning.md §8): true when any detection
   * (a re-read, a re-run, a quote that might come from elsewhere) followed the output. Left out,
   * it is `recalled`: an outcome that sends one flag has a range of one point.
   */
  recalled_high?: boolean;
  /** How many of those turns read the history's prefix from the cache. */
  cached_turns?: number;
  /** The history before the output, for decisions that did not carry it. */
  context_tokens?: number;
  /** For a clearing plan: which of its stubbed ids were recalled. */
  recalled_ids?: string[];
  /** For a server-side clearing decision: what the response's applied_edits said the API cleared. */
  cleared_tool_uses?: number;
  cleared_input_tokens?: number;
}

/** A session's token usage, summed over its turns, as the provider reports it. */
export interface SessionUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  /** Cache writes at the 5-minute TTL (the 1-hour ones are the next field). */
  cache_creation_input_tokens?: number;
  /** Cache writes at the 1-hour TTL, priced at the row's `cache_write_1h`. */
  cache_creation_1h_input_tokens?: number;
}

/** What the ledger keeps of a plan, to price it when its outcome comes. */
export interface LedgerPlan {
  segments: PlanSegment[];
  /** The ids the plan stubbed, or would have stubbed in the holdout. */
  stub: string[];
  large_offload_threshold_tokens: number;
  /** Set on a server-side clearing decision (POST /v1/context-management): the rule it answered. */
  clearing?: LedgerClearing;
}

/** What the ledger keeps of a clearing decision's rule, to find what the API cleared under it. */
export interface LedgerClearing {
  keep: number;
  exclude_tools: string[];
  placeholder_tokens: number;
}
