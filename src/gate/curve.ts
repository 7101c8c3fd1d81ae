import { breakEven, NO_BREAK_EVEN } from "./break-even";
import { preFilterTokens } from "./decision";
import { decideOutcome } from "./outcome";
import type { BreakEven, CacheAwareInputs, CachePriceRates, PricingLookup, PricingMode, ReasonCode } from "./types";

/**
 * The gate's answer along one input, everything else fixed: the curves the
 * console draws. Every point is `decideOutcome` at that input, the very
 * function POST /v1/gate answers with, so a point at the request's own
 * inputs is the gate's decision bit for bit, in either mode, and a point
 * below the pre-filter is the gate's "below threshold" no-fire, not a formula
 * the gate would never apply.
 */

/** The most evenly spaced points a curve may ask for. */
export const MAX_CURVE_POINTS = 101;
/** Evenly spaced points per curve when a request names no number. */
export const DEFAULT_CURVE_POINTS = 41;
/**
 * Points a curve holds beyond the even ones: the request's own value, the
 * first that fires (the break-even), and both sides of the pre-filter edge,
 * so the curve turns exactly where the gate's answer does.
 */
export const CURVE_EXTRA_POINTS = 4;

/** One answer on a curve: what the gate decides at `x`. */
export interface CurvePoint {
  x: number;
  fire: boolean;
  net_saving_usd: number;
  reason_code: ReasonCode;
}

/** How many points, and how far each curve reaches (omitted: far enough to show both the request and its break-even). */
export interface CurveSpan {
  points: number;
  horizonMax?: number | undefined;
  outputTokensMax?: number | undefined;
}

/**
 * Net saving against the horizon (at the request's output size), and against
 * the output size (at its horizon), with the request's own break-evens.
 */
export interface GateCurves extends BreakEven {
  horizon: CurvePoint[];
  output_tokens: CurvePoint[];
}

/**
 * Both curves of a request, from 0 to each span's end, in ascending x, and
 * the break-evens the gate answers for the request itself.
 *
 * @example
 * gateCurves("cache_aware", { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4,
 *   recall_probability: 0.3, cache_hit_rate: 0.9, context_tokens: 60_000 },
 *   { status: "priced", row, canonical: "claude-opus-4-6" }, { points: 41 })
 * // { break_even_horizon: 1, ..., horizon: [{ x: 0, fire: false, ... }, ..., { x: 4, fire: true, net_saving_usd: ≈0.160755, ... }, ...], output_tokens: [...] }
 */
export function gateCurves(
  mode: PricingMode,
  inputs: CacheAwareInputs,
  lookup: PricingLookup<CachePriceRates>,
  span: CurveSpan,
): GateCurves {
  const flips: BreakEven = lookup.status === "priced" ? breakEven(mode, inputs, lookup.row) : NO_BREAK_EVEN;
  const point = (x: number, at: CacheAwareInputs): CurvePoint => {
    const outcome = decideOutcome(mode, at, lookup);
    return { x, fire: outcome.fire, net_saving_usd: outcome.net_saving_usd, reason_code: outcome.reason_code };
  };

  const horizon = Math.trunc(inputs.horizon);
  const beH = flips.break_even_horizon;
  const horizonMax = span.horizonMax ?? Math.max(8, 2 * horizon, beH === null ? 0 : Math.ceil(1.5 * beH) + 1);
  const horizonXs = grid(horizonMax, span.points, [horizon, beH]);

  const tokens = inputs.output_tokens;
  const threshold = preFilterTokens(inputs, mode);
  const beT = flips.break_even_output_tokens;
  const tokensMax =
    span.outputTokensMax ??
    Math.max(1_000, 2 * tokens, Math.ceil(1.2 * threshold), beT === null ? 0 : Math.ceil(1.5 * beT));
  const tokenXs = grid(tokensMax, span.points, [tokens, beT, threshold - 1, threshold]);

  const { break_even_horizon, break_even_output_tokens } = decideOutcome(mode, inputs, lookup);
  return {
    break_even_horizon,
    break_even_output_tokens,
    horizon: horizonXs.map((x) => point(x, { ...inputs, horizon: x })),
    output_tokens: tokenXs.map((x) => point(x, { ...inputs, output_tokens: x })),
  };
}

/**
 * `points` evenly spaced integers from 0 to `max` (fewer when the range
 * holds fewer integers), plus each extra that falls inside it, ascending and
 * without repeats.
 */
function grid(max: number, points: number, extras: Array<number | null>): number[] {
  const xs = new Set<number>();
  const last = Math.max(1, points - 1);
  for (let i = 0; i <= last; i++) xs.add(Math.round((max * i) / last));
  for (const extra of extras) if (extra !== null && extra >= 0 && extra <= max) xs.add(extra);
  return [...xs].sort((a, b) => a - b);
}
