/**
 * @module replay/learned
 *
 * `gate_learned`: the cache-aware gate as a tenant runs it (docs/replay.md §
 * gate_learned). It asks on each tool output as it enters, with the priors
 * the caller's learner holds before this session: the horizon from the
 * session-aware survival estimate (src/gate/survival.ts) at the output's call
 * index, and p as a range, charged recalls at the low end and any detection
 * at the high end (docs/design/learning.md §8), which the gate's
 * robust mode decides on. The priors come in as a function: replay does no
 * learning of its own, and never sees the session it decides. Pure.
 */
import { bandOf, decideOutcome, type Range, type SizeBand } from "../gate";
import { onEntry, type Policy } from "./policy";

/** What the learner knows before a session: its horizon by call index, p by tool and band, q. */
export interface SessionPriors {
  /**
   * Calls from this call index on (it included) that carry an output entering there: [the remaining
   * calls' lower quantile, their mean] (docs/design/economics.md §13.2).
   */
  horizon(callIndex: number): Range;
  /** p's range for a tool's outputs of a size band: [charged recalls, any detection]. */
  recall(tool: string, band: SizeBand): Range;
  cache_hit_rate: number;
  stub_tokens: number;
}

/** One decision as the gate made it, and what it knew: for a report of the decisions that lost. */
export interface LearnedDecision {
  part: number;
  call: number;
  tool: string;
  tokens: number;
  horizon: number;
  horizon_range: Range;
  recall_probability_range: Range;
  fire: boolean;
  net_saving_usd: number;
}

/** The policy's name in every report. */
export const GATE_LEARNED = "gate_learned";

/**
 * The gate on entry with a tenant's learned, session-aware priors.
 *
 * @example
 * gateLearned({ horizon: () => [9, 40], recall: () => [0.01, 0.4], cache_hit_rate: 0.9, stub_tokens: 200 }).name // "gate_learned"
 */
export function gateLearned(priors: SessionPriors, log?: (decision: LearnedDecision) => void): Policy {
  return onEntry(
    GATE_LEARNED,
    { horizon: "session-aware", recall_probability: "range", stub_tokens: priors.stub_tokens },
    (s, id, position) => {
      const tokens = s.sizes.tokens[id]!;
      const tool = s.trace.parts[id]!.tool ?? "unknown";
      const range = priors.recall(tool, bandOf(tokens));
      const horizonRange = priors.horizon(s.call);
      const horizon = horizonRange[1];
      // The robust mode (docs/design/economics.md §6) over both ranges: a stub fires only where it pays
      // at the short end of the session's likely remaining calls and at the high end of p.
      const decision = decideOutcome(
        "cache_aware",
        {
          model_name: s.priced.canonical,
          output_tokens: tokens,
          recall_input_tokens: tokens,
          horizon,
          horizon_range: horizonRange,
          recall_probability: range[1],
          recall_probability_range: range,
          cache_hit_rate: priors.cache_hit_rate,
          context_tokens: s.full(position),
          cache_ttl: s.ttl,
          stub_tokens: priors.stub_tokens,
        },
        { status: "priced", row: s.priced.row, canonical: s.priced.canonical },
      );
      log?.({
        part: id,
        call: s.call,
        tool,
        tokens,
        horizon,
        horizon_range: horizonRange,
        recall_probability_range: range,
        fire: decision.fire,
        net_saving_usd: decision.net_saving_usd,
      });
      return decision.fire ? priors.stub_tokens : null;
    },
  );
}
