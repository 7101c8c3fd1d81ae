/**
 * The ranges a learned prior may take: those a request may send for the same
 * field (a horizon in [0, MAX_HORIZON], a probability in [0, 1]). Pooling
 * consistent sums (src/store/learning.ts checks them on read) stays inside
 * them; the clamp is what keeps any value that slips past the check from
 * deciding on a prior no caller could have sent. Pure.
 *
 * @module
 */
import { MAX_HORIZON } from "../store/config-values";
import type { LearnedField, PooledField, PooledPriors } from "./pool";

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
