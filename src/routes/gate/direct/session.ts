/**
 * The horizon that knows the session, put into a cache-aware decision's
 * inputs (docs/design/economics.md §13): when the request says something
 * about its session (`call_index`, `subagent`, `agent`) and gives no horizon,
 * the horizon is the remaining calls' range, from their lower quartile to
 * their mean, which the robust rule decides on (§6, §13.2).
 *
 * @module
 */
import type { PricingMode } from "../../../gate";
import { bandOf, pyFixed } from "../../../gate";
import { type FamilyRecall, familyRecall, type SessionHorizon, sessionHorizon } from "../../../learning";
import { MAX_HORIZON } from "../../../storage/rules";
import type { GateConfig } from "../../../storage/schemas";
import type { GateRequest, ResolvedInputs } from "../schemas";
import { type AnswerPriors, nearestTurns } from "./priors";

/** A decision's inputs and priors with the session-aware horizon, and the clause its reason gains. */
export interface WithSession {
  inputs: ResolvedInputs;
  priors: AnswerPriors;
  /** Appended to a priced decision's reason; null: the session's facts priced nothing. */
  note: string | null;
}

/**
 * The session-aware horizon in place of the config's or the learned one,
 * for a cache-aware request that tells its session and gives no horizon; any
 * other request comes back as it was (seed mode ignores the facts, bit for bit).
 *
 * @example
 * withSessionHorizon({ model_name: "m", agent: "claude-code", subagent: true }, inputs, priors, "cache_aware").priors.horizon
 * // { value: 1.2…, source: "family", n: 22 }
 */
export function withSessionHorizon(
  body: GateRequest,
  inputs: ResolvedInputs,
  priors: AnswerPriors,
  mode: PricingMode,
): WithSession {
  const unchanged = { inputs, priors, note: null };
  if (mode !== "cache_aware" || body.horizon !== undefined || body.horizon_range !== undefined) return unchanged;
  if (body.call_index === undefined && body.subagent === undefined && body.agent === undefined) return unchanged;
  const session = sessionHorizon(body);
  if (session === null) return unchanged;
  const hi = Math.min(MAX_HORIZON, nearestTurns(session.mean));
  const lo = Math.min(hi, Math.floor(session.low));
  return {
    inputs: { ...inputs, horizon: hi, horizon_range: [lo, hi] },
    priors: { ...priors, horizon: { value: session.mean, source: session.source, n: session.n } },
    note: sessionNote(session),
  };
}

/**
 * A new tenant's p from the named agent family's calibration (docs/design/learning.md §8.1): for a
 * cache-aware request that names a calibrated `agent` and a `tool_name` the family saw, gives no p,
 * and whose tenant has learned nothing for it (its p is the config's), p is the family's range,
 * charged recalls to any detection, decided on through the robust rule at its high end. Anything
 * else comes back as it was.
 *
 * @example
 * withFamilyRecall({ model_name: "m", agent: "mini-swe-agent", tool_name: "bash" }, inputs, priors, "cache_aware", config).priors.recall_probability
 * // { value: 0.625…, source: "family", n: 3408 }
 */
export function withFamilyRecall(
  body: GateRequest,
  inputs: ResolvedInputs,
  priors: AnswerPriors,
  mode: PricingMode,
  config: Readonly<GateConfig>,
): WithSession {
  const unchanged = { inputs, priors, note: null };
  if (mode !== "cache_aware" || body.agent === undefined || body.tool_name === undefined) return unchanged;
  if (body.recall_probability !== undefined || body.recall_probability_range !== undefined) return unchanged;
  if (priors.recall_probability.source !== "config") return unchanged;
  const band = bandOf(inputs.output_tokens);
  const family = familyRecall(body.agent, body.tool_name, band, config.p_recall, config.learning_prior_weight);
  if (family === null) return unchanged;
  const [lo, hi] = family.range;
  return {
    inputs: { ...inputs, recall_probability: hi, recall_probability_range: [lo, hi] },
    priors: { ...priors, recall_probability: { value: hi, source: "family", n: family.n } },
    note: recallNote(family, body.tool_name),
  };
}

/**
 * What priced a family's p, in words a reason can carry.
 *
 * @example
 * recallNote({ range: [0.0719, 0.625], n: 3408, family: "mini-swe-agent" }, "bash")
 * // "; p from mini-swe-agent bash outputs (n=3408): 0.07 to 0.63 (charged to detected)"
 */
export function recallNote(family: FamilyRecall, tool: string): string {
  return (
    `; p from ${family.family} ${tool} outputs (n=${family.n}): ` +
    `${pyFixed(family.range[0], 2)} to ${pyFixed(family.range[1], 2)} (charged to detected)`
  );
}

/**
 * What priced the horizon, in words a reason can carry: the sample, its size, the call index, the range.
 *
 * @example
 * sessionNote(session) // "; horizon from claude-code main sessions (n=68) at call_index=12: 9 to 143.7 calls (lower quartile to mean)"
 */
export function sessionNote(session: SessionHorizon): string {
  const kind = session.kind === null ? "" : ` ${session.kind}`;
  const sample =
    session.family === null ? `every family's${kind} sessions pooled` : `${session.family}${kind} sessions`;
  const unknown = session.unknownAgent === null ? "" : ` (agent ${session.unknownAgent} has no calibrated sessions)`;
  return (
    `; horizon from ${sample}${unknown} (n=${session.n}) at call_index=${session.callIndex}: ` +
    `${Math.floor(session.low)} to ${pyFixed(session.mean, 1)} calls (lower quartile to mean)`
  );
}
