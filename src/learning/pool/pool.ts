/**
 * The learner of docs/design/learning.md §2: priors pooled level by level, with one
 * rule at every level (./chain.ts says which levels a decision pools:
 * config → replay → tenant → tool → tool × model). Pure: sums in, priors
 * out; no I/O, no clock.
 */
import { addSums, emptySums, type LevelSums } from "../../gate";
import { MAX_HORIZON } from "../../storage/rules";

export { addSums, emptySums, type LevelSums };

/** The three learned fields, as the gate request names them. */
export const LEARNED_FIELDS = ["horizon", "recall_probability", "cache_hit_rate"] as const;
export type LearnedField = (typeof LEARNED_FIELDS)[number];

/**
 * Where a pooled value's most specific observations came from: none (the config's), imported history,
 * or the tenant's own outcomes; `unverified` (p only): the tool's reporting is flagged and not
 * acknowledged, so its own outcomes are set aside and the value is its parent's (config or replay).
 */
export type PooledSource = "config" | "replay" | "learned" | "unverified";

/** A field's value after pooling, and what the most specific level with observations saw. */
export interface PooledField {
  value: number;
  source: PooledSource;
  /** Observations at the most specific level with any (0: nothing learned, the config's value). */
  n: number;
  /** w + n at that level: the Beta's concentration for p and q, √ of it the h range's divisor. */
  concentration: number;
  /** The sample standard deviation of turns_after at that level (h only; null below 2). */
  sd: number | null;
}

export type PooledPriors = Record<LearnedField, PooledField>;

/** The config's own values: the root every level pools toward. */
export type RootPriors = Record<LearnedField, number>;

/**
 * The one pooling rule: m = (w · m_parent + n · x̄) ÷ (w + n). A level with
 * no observations passes its parent through unchanged, computing nothing, so
 * with no outcomes every value is the config's, bit for bit.
 *
 * @example
 * poolField({ value: 0.25, source: "config", n: 0, concentration: 10, sd: null }, 200, 60 / 200, 10, null).value // 0.2976190476190476
 */
export function poolField(
  parent: PooledField,
  n: number,
  mean: number,
  weight: number,
  sd: number | null,
  source: PooledSource = "learned",
): PooledField {
  if (n === 0) return parent;
  const value = (weight * parent.value + n * mean) / (weight + n);
  return { value, source, n, concentration: weight + n, sd };
}

/**
 * One level pooled on its parent: each field by the one rule, with its own
 * observations (q has none when its outcomes ran no turns).
 *
 * @example
 * poolLevel(rootPooled({ horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 }, 10), tenantSums, 10)
 */
export function poolLevel(
  parent: PooledPriors,
  sums: LevelSums,
  weight: number,
  source: PooledSource = "learned",
  within?: LevelSums,
): PooledPriors {
  const qObserved = observedN(sums).cache_hit_rate;
  // Each outcome counts once (docs/design/learning.md §2.4): a level holding exactly the observations of
  // a level above it that the chain already pooled adds nothing for that field.
  const counted = within === undefined ? null : observedN(within);
  const fresh = (field: LearnedField, n: number) => (counted !== null && counted[field] === n ? 0 : n);
  return {
    recall_probability: poolField(
      parent.recall_probability,
      fresh("recall_probability", sums.p_n),
      sums.p_n > 0 ? sums.p_r / sums.p_n : 0,
      weight,
      null,
      source,
    ),
    horizon: poolField(
      parent.horizon,
      fresh("horizon", sums.h_n),
      sums.h_n > 0 ? sums.h_sum / sums.h_n : 0,
      weight,
      sampleSd(sums),
      source,
    ),
    cache_hit_rate: poolField(
      parent.cache_hit_rate,
      fresh("cache_hit_rate", qObserved),
      qObserved > 0 ? sums.q_cached / sums.q_turns : 0,
      weight,
      null,
      source,
    ),
  };
}

/**
 * The config's values as the root level: nothing observed.
 *
 * @example
 * rootPooled({ horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 }, 10).horizon // { value: 4, source: "config", n: 0, concentration: 10, sd: null }
 */
export function rootPooled(root: RootPriors, weight: number): PooledPriors {
  const field = (value: number): PooledField => ({ value, source: "config", n: 0, concentration: weight, sd: null });
  return {
    horizon: field(root.horizon),
    recall_probability: field(root.recall_probability),
    cache_hit_rate: field(root.cache_hit_rate),
  };
}

/** One level of a chain: its sums and whose observations they are. */
export interface ChainLevel {
  sums: LevelSums;
  source: Exclude<PooledSource, "config">;
  /**
   * The sums of a level earlier in the chain whose observations include all of this one's (a tool's
   * for its tool × model): where a field's count equals that level's, the two hold the same
   * outcomes and this level adds nothing for the field.
   */
  within?: LevelSums;
}

/**
 * A level's observations per field: p's fired outcomes, h's outcomes, q's outcomes that sent
 * cached_turns (none when they ran no turns).
 *
 * @example
 * observedN({ ...emptySums(), p_n: 4, h_n: 9 }) // { recall_probability: 4, horizon: 9, cache_hit_rate: 0 }
 */
export function observedN(sums: LevelSums): Record<LearnedField, number> {
  return { recall_probability: sums.p_n, horizon: sums.h_n, cache_hit_rate: sums.q_turns > 0 ? sums.q_n : 0 };
}

/**
 * Levels from the root down, each present or not, each pooled on the one
 * before by the one rule. A bare sums level is the tenant's own outcomes.
 *
 * @example
 * learnPriors(root, [tenantSums, toolSums, toolModelSums], 10).recall_probability.value // 0.7543290043290043 (example L3)
 * learnPriors(root, [{ sums: imported, source: "replay" }], 10).recall_probability.source // "replay"
 */
export function learnPriors(
  root: RootPriors,
  levels: ReadonlyArray<LevelSums | ChainLevel | undefined>,
  weight: number,
): PooledPriors {
  const config = rootPooled(root, weight);
  let pooled = config;
  for (const level of levels) {
    if (level === undefined) continue;
    pooled =
      "source" in level
        ? poolLevel(pooled, level.sums, weight, level.source, level.within)
        : poolLevel(pooled, level, weight);
  }
  // A prior no request could send never decides (src/learning/pool/pool.ts).
  return clampPooled(pooled, config);
}

function sampleSd(sums: LevelSums): number | null {
  if (sums.h_n < 2) return null;
  const mean = sums.h_sum / sums.h_n;
  return Math.sqrt(Math.max(0, (sums.h_sumsq - sums.h_n * mean * mean) / (sums.h_n - 1)));
}

/** The closed range a request may send for each learned field. */
export const LEARNED_RANGES: Readonly<Record<LearnedField, readonly [number, number]>> = {
  horizon: [0, MAX_HORIZON],
  recall_probability: [0, 1],
  cache_hit_rate: [0, 1],
};

/**
 * Every pooled field inside its range: a value outside is clamped to the
 * nearest end, one that is not a finite number falls back to the parent
 * `root` (the config's, nothing learned). A horizon's standard deviation
 * is bounded by the range's width, so its credible range stays finite.
 *
 * @example
 * clampPooled({ ...pooled, horizon: { value: 9e298, n: 3, concentration: 13, sd: null } }, root).horizon.value // 1000000
 */
export function clampPooled(pooled: PooledPriors, root: PooledPriors): PooledPriors {
  return {
    horizon: clampField(pooled.horizon, root.horizon, LEARNED_RANGES.horizon),
    recall_probability: clampField(
      pooled.recall_probability,
      root.recall_probability,
      LEARNED_RANGES.recall_probability,
    ),
    cache_hit_rate: clampField(pooled.cache_hit_rate, root.cache_hit_rate, LEARNED_RANGES.cache_hit_rate),
  };
}

function clampField(field: PooledField, root: PooledField, [lo, hi]: readonly [number, number]): PooledField {
  if (!Number.isFinite(field.value) || !Number.isFinite(field.concentration)) return root;
  const sd = field.sd === null || !Number.isFinite(field.sd) ? null : Math.min(field.sd, hi - lo);
  if (field.value >= lo && field.value <= hi && sd === field.sd) return field;
  return { ...field, value: Math.min(hi, Math.max(lo, field.value)), sd };
}
