import { type CacheAwareParams, requestRates, termsAt } from "./cache-aware";
import { clampHorizon, clampProbability, seedTerms } from "./decision";
import { pyFixed, pyInt } from "./pyformat";
import type { CachePriceRates, PricingMode, PriorRanges, Range, WorstCase } from "./types";

/**
 * Robust priors (docs/design/economics.md §6): with ranges given, the gate fires only
 * if net is positive at the point and at every corner of the box of priors.
 * Within one tier pair net is affine in each of h (for h ≥ 1), p and q
 * separately, so its minimum over the box sits at a corner; h = 0 is its own
 * case (net = −recall), so the horizons checked are {lo, max(lo, 1), hi}.
 * Pure: no I/O, no clock.
 */

/** The corners' coordinates, clamped as the point is; `cacheHitRates` is null in seed mode. */
export interface PriorBox {
  horizons: readonly number[];
  recallProbabilities: readonly number[];
  cacheHitRates: readonly number[] | null;
}

/**
 * The point a range stands for when the request gives only the range: its
 * midpoint, rounded down for an integer field such as the horizon.
 *
 * @example
 * rangeMidpoint([2, 7], true) // 4
 * rangeMidpoint([0.8, 1], false) // 0.9
 */
export function rangeMidpoint(range: Range, integer: boolean): number {
  const mid = range[0] + (range[1] - range[0]) / 2;
  return integer ? Math.floor(mid) : mid;
}

/**
 * The box to check, or null when no range applies (the seed has no q, so a
 * q range alone leaves a seed decision as it is). A variable without a range
 * contributes its point value only.
 *
 * @example
 * priorBox("cache_aware", { horizon_range: [0, 6] }, { horizon: 3, recallProbability: 0.3, cacheHitRate: 0.9 })
 * // { horizons: [0, 1, 6], recallProbabilities: [0.3], cacheHitRates: [0.9] }
 */
export function priorBox(
  mode: PricingMode,
  ranges: PriorRanges,
  point: { horizon: number; recallProbability: number; cacheHitRate: number },
): PriorBox | null {
  const { horizon_range: hr, recall_probability_range: pr } = ranges;
  const qr = mode === "seed" ? undefined : ranges.cache_hit_rate_range;
  if (hr === undefined && pr === undefined && qr === undefined) return null;
  let horizons = [point.horizon];
  if (hr !== undefined) {
    const [lo, hi] = ordered(clampHorizon(hr[0]), clampHorizon(hr[1]));
    horizons = distinct([lo, Math.max(lo, 1), hi].filter((h) => h <= hi));
  }
  return {
    horizons,
    recallProbabilities: pr === undefined ? [point.recallProbability] : unitEnds(pr),
    cacheHitRates: mode === "seed" ? null : qr === undefined ? [point.cacheHitRate] : unitEnds(qr),
  };
}

/**
 * The lowest net over the point and the box's corners, first found on a tie.
 * The point is included so that `fire ⇔ worst.net_saving_usd > 0` holds in
 * floating point too.
 *
 * @example
 * worstCase("cache_aware", opusRow, params, box).net_saving_usd // ≈ −0.01828 for example B1
 */
export function worstCase(mode: PricingMode, row: CachePriceRates, params: CacheAwareParams, box: PriorBox): WorstCase {
  const rates = mode === "seed" ? null : requestRates(row, params);
  const netAt = (horizon: number, recallProbability: number, cacheHitRate: number) => {
    const at = { ...params, horizon, recallProbability, cacheHitRate };
    return rates === null ? seedTerms(row, at).net : termsAt(rates, at).net;
  };
  const qs = box.cacheHitRates ?? [params.cacheHitRate];
  let worst: WorstCase = {
    net_saving_usd: netAt(params.horizon, params.recallProbability, params.cacheHitRate),
    horizon: params.horizon,
    recall_probability: params.recallProbability,
    cache_hit_rate: box.cacheHitRates === null ? null : params.cacheHitRate,
  };
  for (const h of box.horizons) {
    for (const p of box.recallProbabilities) {
      for (const q of qs) {
        const net = netAt(h, p, q);
        if (net < worst.net_saving_usd || Number.isNaN(net)) {
          worst = {
            net_saving_usd: net,
            horizon: h,
            recall_probability: p,
            cache_hit_rate: box.cacheHitRates === null ? null : q,
          };
        }
      }
    }
  }
  return worst;
}

/**
 * The clause a ranged decision's reason ends with.
 *
 * @example
 * worstCaseClause({ net_saving_usd: -0.01828, horizon: 2, recall_probability: 0.5, cache_hit_rate: 0.8 })
 * // "; worst=$-0.0183 at H=2 p_recall=0.50 q=0.80"
 */
export function worstCaseClause(worst: WorstCase): string {
  const q = worst.cache_hit_rate === null ? "" : ` q=${pyFixed(worst.cache_hit_rate, 2)}`;
  return `; worst=$${pyFixed(worst.net_saving_usd, 4)} at H=${pyInt(worst.horizon)} p_recall=${pyFixed(worst.recall_probability, 2)}${q}`;
}

function ordered(a: number, b: number): [number, number] {
  return a <= b ? [a, b] : [b, a];
}

function unitEnds(range: Range): number[] {
  return distinct(ordered(clampProbability(range[0]), clampProbability(range[1])));
}

function distinct(values: number[]): number[] {
  return values.filter((value, i) => values.indexOf(value) === i);
}
