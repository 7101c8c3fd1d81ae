import type { PricingMode } from "../../../gate";
import { bandOf } from "../../../gate";
import {
  type ExploreDraws,
  horizonRange,
  LEARNED_FIELDS,
  type LearnedField,
  learnedFor,
  type PooledPriors,
  sampleHorizon,
  sampleUnit,
  unitRange,
} from "../../../learning";
import type { LearnedValue } from "../../../storage";
import type { GateConfig } from "../../../storage/schemas";
import type { GateRequest, ResolvedInputs } from "../schemas";

/**
 * Where a prior the gate used came from: the request, the tenant's outcomes,
 * imported history, or the config; `explore` is a draw from the learned
 * posterior on an exploring session (p, and h where h was learned); `family`:
 * the agent family's calibration (h: its session lengths; p: its tool's
 * recalls, for a tenant that learned none), `pooled` (h only): every
 * family's session lengths (./session.ts).
 */
export type PriorSource = "request" | "learned" | "replay" | "config" | "explore" | "unverified" | "family" | "pooled";

/** One prior as the answer reports it: its value, its source, and the observations behind it (0 unless learned). */
export interface AnswerPrior {
  value: number;
  source: PriorSource;
  n: number;
}

export type AnswerPriors = Record<LearnedField, AnswerPrior>;

const RANGE_OF = {
  horizon: "horizon_range",
  recall_probability: "recall_probability_range",
  cache_hit_rate: "cache_hit_rate_range",
} as const satisfies Record<LearnedField, keyof GateRequest>;

/**
 * Puts the learned priors into a decision's inputs, for the fields the
 * request leaves out (a point or a range the caller sent always wins), and
 * says where each prior came from. With `learning_credible` set, a learned
 * field also gets its credible range, so the robust rule decides. With no
 * value, or no observations at any level, the inputs come back as they were:
 * the config's priors, bit for bit. On an exploring (session, tool)
 * (`explore`: its draws, ../../../learning/explore.ts) with something learned,
 * p (and a learned h) is a draw from its posterior instead, its source `explore`.
 *
 * @example
 * applyLearned(body, inputs, "cache_aware", value, config, "claude-opus-4-6").priors.recall_probability
 * // { value: 0.7543290043290043, source: "learned", n: 12 }
 */
export function applyLearned(
  body: GateRequest,
  inputs: ResolvedInputs,
  mode: PricingMode,
  value: Readonly<LearnedValue> | null,
  config: Readonly<GateConfig>,
  model: string,
  explore: ExploreDraws | null = null,
): { inputs: ResolvedInputs; priors: AnswerPriors } {
  // The output's size picks the band (src/gate/level-sums.ts): recall grows with size.
  const pooled =
    value === null ? null : learnedFor(value, config, body.tool_name ?? null, model, bandOf(inputs.output_tokens));
  let used = inputs;
  const priors = {} as AnswerPriors;
  for (const field of LEARNED_FIELDS) {
    const given = body[field] !== undefined || body[RANGE_OF[field]] !== undefined;
    const learned = pooled?.[field];
    if (given) {
      priors[field] = { value: inputs[field] ?? configValue(field, config), source: "request", n: 0 };
    } else if (learned?.source === "unverified") {
      // Flagged reporting (docs/learning.md § Reporting that can be trusted): the parent's p, and the answer says why.
      priors[field] = {
        value: learned.n === 0 ? (inputs[field] ?? configValue(field, config)) : learned.value,
        source: "unverified",
        n: learned.n,
      };
      if (learned.n > 0) used = withLearned(used, field, pooled!, mode, config.learning_credible);
    } else if (learned === undefined || learned.n === 0) {
      priors[field] = { value: inputs[field] ?? configValue(field, config), source: "config", n: 0 };
    } else {
      priors[field] = {
        value: learned.value,
        source: learned.source === "replay" ? "replay" : "learned",
        n: learned.n,
      };
      used = withLearned(used, field, pooled!, mode, config.learning_credible);
    }
  }
  const p = priors.recall_probability.source;
  // Flagged reporting is not explored: what an exploring decision observes would be as doubtful.
  if (explore !== null && pooled !== null && isInformed(pooled) && p !== "request" && p !== "unverified") {
    // Thompson sampling (docs/design/learning.md §3.4): p, and h where it was learned, drawn from their
    // posteriors, so a value stuck a little on the wrong side of break-even is tested on both sides.
    const drawn = sampleUnit(pooled.recall_probability, explore.p);
    used = {
      ...used,
      recall_probability: drawn,
      ...(config.learning_credible === null ? {} : { recall_probability_range: [drawn, drawn] as [number, number] }),
    };
    priors.recall_probability = { value: drawn, source: "explore", n: pooled.recall_probability.n };
    if (priors.horizon.source === "learned" || priors.horizon.source === "replay") {
      const h = sampleHorizon(pooled.horizon, explore.h);
      used = {
        ...used,
        horizon: nearestTurns(h),
        ...(config.learning_credible === null
          ? {}
          : { horizon_range: [nearestTurns(h), nearestTurns(h)] as [number, number] }),
      };
      priors.horizon = { value: h, source: "explore", n: pooled.horizon.n };
    }
  }
  return { inputs: used, priors };
}

// Something was learned for this decision: with nothing learned, no answer changes (the seed's bit for bit).
function isInformed(pooled: PooledPriors): boolean {
  return LEARNED_FIELDS.some((field) => pooled[field].n > 0);
}

function configValue(field: LearnedField, config: Readonly<GateConfig>): number {
  if (field === "horizon") return config.expected_conversation_depth;
  return field === "recall_probability" ? config.p_recall : config.cache_hit_rate;
}

// The seed prices no cache, so q is neither filled in nor ranged there.
function withLearned(
  inputs: ResolvedInputs,
  field: LearnedField,
  pooled: PooledPriors,
  mode: PricingMode,
  credible: number | null,
): ResolvedInputs {
  if (field === "cache_hit_rate" && mode === "seed") return inputs;
  const learned = pooled[field];
  const next: ResolvedInputs = { ...inputs };
  if (field === "horizon") {
    // A learned horizon is an expected value, and the carry is linear in h: both modes' cores take a
    // whole number of turns (the seed's int()), so they get the mean's nearest integer, never its floor;
    // a range covers the credible interval, its ends out to the integers around it
    // (docs/design/learning.md §3.1). The echo says what was priced.
    next.horizon = nearestTurns(learned.value);
    const range = credible === null ? null : horizonRange(learned, credible);
    if (range !== null) next.horizon_range = [Math.floor(range[0]), Math.ceil(range[1])];
  } else {
    next[field] = learned.value;
    if (credible !== null) next[RANGE_OF[field]] = unitRange(learned, credible);
  }
  return next;
}

/**
 * A learned mean horizon as the whole number of turns the cores price: the nearest integer (halves up).
 *
 * @example
 * nearestTurns(3.9) // 4, where the seed's int() would give 3
 */
export function nearestTurns(mean: number): number {
  return Math.floor(mean + 0.5);
}
