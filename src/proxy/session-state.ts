/**
 * @module proxy/session-state
 *
 * What the proxy keeps of one observed session until it is reported
 * (docs/design/proxy.md §7): no content, only counts. Per decision: its id,
 * how many later requests carried the output, how many of those read it
 * from the cache, whether a later answer quoted what only it held; per
 * request: the usage as the provider reported it. Pure: the Durable Object
 * (./session-store.ts) stores what these functions return.
 */
import type { Usage } from "../replay";

/** One decision's running outcome. */
export interface DecisionTally {
  decision_id: string;
  /**
   * Whether the gate fired: only a fired decision's outcome may say recalled (the ledger refuses it
   * otherwise, docs/api/ledger.md). Absent in a state kept before it was (then taken as fired).
   */
  fired?: boolean;
  /** Later requests that carried the output: the realized horizon. */
  turns_after: number;
  /** Of those, the requests whose cache read reached past the output. */
  cached_turns: number;
  /** The low end of the recall evidence: a charged recall (docs/design/learning.md §8). */
  recalled: boolean;
  /**
   * The high end: any detection, re-reads and quotes that might come from elsewhere included.
   * Absent in a state kept before the range was (it then reads as `recalled`).
   */
  recalled_high?: boolean;
}

/** A session as the proxy keeps it until it goes idle. */
export interface SessionState {
  tenant: string;
  /** The session id the ledger knows it by (its decisions' and its bill's). */
  ledger_session: string;
  model: string;
  first_at: number;
  last_at: number;
  /** Each request's usage, in order (at most {@link MAX_KEPT_REQUESTS}; the rest are summed into the last). */
  usages: Usage[];
  /** Decisions by the key of their output (a hash of its call id). */
  decisions: Record<string, DecisionTally>;
}

/** What one exchange adds: its new decisions, what it carried, its usage. */
export interface SessionUpdate {
  tenant: string;
  ledger_session: string;
  model: string;
  at: number;
  decisions: { key: string; decision_id: string; fired: boolean }[];
  /** The outputs this request carried again (decided in an earlier one): cached when the cache read reached past them. */
  carried: { key: string; cached: boolean; recalled: boolean; recalled_high: boolean }[];
  usage: Usage | null;
}

/** Most per-request usages kept: the ledger's own limit on a session report's list. */
export const MAX_KEPT_REQUESTS = 1_000;

/**
 * The state after one exchange.
 *
 * @example
 * const next = applyUpdate(null, { tenant: "t", ledger_session: "s", model: "m", at: 1, decisions: [], carried: [], usage: null });
 */
export function applyUpdate(state: SessionState | null, update: SessionUpdate): SessionState {
  const next: SessionState = state ?? {
    tenant: update.tenant,
    ledger_session: update.ledger_session,
    model: update.model,
    first_at: update.at,
    last_at: update.at,
    usages: [],
    decisions: Object.create(null) as Record<string, DecisionTally>,
  };
  next.last_at = Math.max(next.last_at, update.at);
  for (const seen of update.carried) {
    const tally = next.decisions[seen.key];
    if (tally === undefined) continue;
    tally.turns_after++;
    if (seen.cached) tally.cached_turns++;
    if (seen.recalled) tally.recalled = true;
    // The high end holds every detection the low end does.
    if (seen.recalled_high || seen.recalled) tally.recalled_high = true;
  }
  for (const decided of update.decisions) {
    if (next.decisions[decided.key] !== undefined) continue;
    next.decisions[decided.key] = {
      decision_id: decided.decision_id,
      fired: decided.fired,
      turns_after: 0,
      cached_turns: 0,
      recalled: false,
      recalled_high: false,
    };
  }
  if (update.usage !== null) {
    if (next.usages.length < MAX_KEPT_REQUESTS) next.usages.push({ ...update.usage });
    else {
      const last = next.usages[next.usages.length - 1]!;
      for (const field of ["input", "cache_read", "cache_write_5m", "cache_write_1h", "output"] as const)
        last[field] += update.usage[field];
    }
  }
  return next;
}
