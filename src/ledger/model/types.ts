import type { SessionUsage } from "./savings";

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
