import { cacheAwareParams, cacheAwareTerms, laterTurnRate, ratesAt, type CacheAwareParams, type TokenRates } from "./cache-aware";
import { DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS, TOKENS_PER_MILLION } from "./constants";
import type { BreakEven, CacheAwareInputs, CachePriceRates, PricingMode } from "./types";

/**
 * Break-evens in closed form. With everything else fixed, net is affine in
 * the horizon (for h ≥ 1) and piecewise affine in the output size (one piece
 * per side of a long-context threshold), so each break-even is the root of a
 * line, rounded to the next integer. The root is then checked against the
 * decision's own `net > 0` at the integer and the one below it, because the
 * decision computes net in floating point and may land a few ulps on the
 * other side of zero than exact arithmetic does.
 */

/** The largest horizon a break-even is looked for up to. */
export const BREAK_EVEN_MAX_HORIZON = 10_000;
/** The largest output size a break-even is looked for up to (the API's token bound). */
export const BREAK_EVEN_MAX_OUTPUT_TOKENS = 1_000_000_000_000;
// How far the floating-point check may move the closed form's root.
const MAX_CORRECTION_STEPS = 32;

/** No break-even: the decision was not priced. */
export const NO_BREAK_EVEN: BreakEven = Object.freeze({ break_even_horizon: null, break_even_output_tokens: null });

/**
 * Both break-evens of a priced decision in the given mode.
 *
 * @example
 * breakEven("seed", { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3,
 *   cache_hit_rate: 0.9, context_tokens: 0 }, { input: 5, output: 25 })
 * // { break_even_horizon: 1, break_even_output_tokens: 10000 }
 */
export function breakEven(mode: PricingMode, inputs: CacheAwareInputs, row: CachePriceRates): BreakEven {
  const params = cacheAwareParams(inputs);
  const model = mode === "seed" ? seedModel(row, params) : cacheModel(row, params);
  const threshold = inputs.large_offload_threshold_tokens ?? DEFAULT_LARGE_OFFLOAD_THRESHOLD_TOKENS;
  return {
    // Below the pre-filter no horizon fires.
    break_even_horizon: params.outputTokens < threshold ? null : horizonBreakEven(model, params),
    break_even_output_tokens: outputBreakEven(model, params, Math.max(0, Math.ceil(threshold))),
  };
}

/** What the solvers need: the decision's own predicate and the rates of each request. */
interface NetModel {
  /** The decision's net at (o, h), with its floating-point operations. */
  net(o: number, h: number): number;
  /** Rates of the request that keeps an output of `o` tokens. */
  keep(o: number): TokenRates;
  stubbed: TokenRates;
  /** q, and P (0 in seed mode, which has neither). */
  q: number;
  context: number;
  /** The output size past which `keep` switches tier, or Infinity. */
  tierFrom: number;
}

function seedModel(row: CachePriceRates, params: CacheAwareParams): NetModel {
  // The seed prices every carried token at `in`: flat rates, read = write = in.
  const inRate = (row.input ?? 0) / TOKENS_PER_MILLION;
  const outRate = (row.output ?? 0) / TOKENS_PER_MILLION;
  const flat: TokenRates = { in: inRate, out: outRate, read: inRate, write: inRate, tiered: false };
  const { stubTokens, recallProbability, recallInputTokens, recallOutputTokens } = params;
  return {
    // evaluateOffloadGate's operations, in its order.
    net: (o, h) =>
      o * inRate * h - (stubTokens * inRate * h + recallProbability * (recallInputTokens * inRate + recallOutputTokens * outRate)),
    keep: () => flat,
    stubbed: flat,
    q: 0,
    context: 0,
    tierFrom: Infinity,
  };
}

function cacheModel(row: CachePriceRates, params: CacheAwareParams): NetModel {
  const tier = row.long_context;
  return {
    net: (o, h) => cacheAwareTerms(row, { ...params, outputTokens: o, horizon: h }).net,
    keep: (o) => ratesAt(row, params.contextTokens + o),
    stubbed: ratesAt(row, params.contextTokens + params.stubTokens),
    q: params.cacheHitRate,
    context: params.contextTokens,
    // keep is tiered once P + o > threshold_tokens, i.e. from o = floor(threshold − P) + 1.
    tierFrom: tier === undefined ? Infinity : Math.max(0, Math.floor(tier.threshold_tokens - params.contextTokens) + 1),
  };
}

/**
 * net(h) = net(1) + (h − 1)·a for h ≥ 1, with a = O·m(K) + P·(m(K) − m(T)) − S·m(T);
 * net(0) = −recall never fires. The smallest h with net(h) > 0 is 1 when
 * net(1) > 0, else floor(−net(1)/a) + 2 when a > 0, else none.
 */
function horizonBreakEven(model: NetModel, params: CacheAwareParams): number | null {
  const o = params.outputTokens;
  const keep = model.keep(o);
  const stubbed = model.stubbed;
  const mKeep = laterTurnRate(keep, model.q);
  const mStub = laterTurnRate(stubbed, model.q);
  const recall =
    params.recallProbability *
    (params.recallInputTokens * stubbed.write + params.recallOutputTokens * stubbed.out + model.context * mStub);
  const premiumPerTurn = model.context * (mKeep - mStub);
  const net1 = o * keep.write + premiumPerTurn - params.stubTokens * stubbed.write - recall;
  const slope = o * mKeep + premiumPerTurn - params.stubTokens * mStub;
  let root: number;
  if (net1 > 0) root = 1;
  else if (slope > 0) root = Math.floor(-net1 / slope) + 2;
  else root = Infinity;
  return settle(root, 1, BREAK_EVEN_MAX_HORIZON, (h) => model.net(o, h) > 0);
}

/**
 * At a fixed h ≥ 1, net(O) = O·carry(K, h) + P·h·(m(K) − m(T)) − S·carry(T, h) − recall,
 * affine on each side of the tier boundary: solve the untiered piece, then
 * the tiered one. At h = 0 nothing is carried and net = −recall: none.
 */
function outputBreakEven(model: NetModel, params: CacheAwareParams, from: number): number | null {
  const h = params.horizon;
  if (h === 0) return null;
  const fires = (o: number) => model.net(o, h) > 0;
  const pieces: Array<[number, number]> = [
    [from, Math.min(BREAK_EVEN_MAX_OUTPUT_TOKENS, model.tierFrom - 1)],
    [Math.max(from, model.tierFrom), BREAK_EVEN_MAX_OUTPUT_TOKENS],
  ];
  for (const [low, high] of pieces) {
    if (low > high) continue;
    const root = pieceRoot(model, params, low, h);
    if (root <= high) return settle(root, from, BREAK_EVEN_MAX_OUTPUT_TOKENS, fires);
  }
  // The roots may sit a few ulps past the end of the range.
  return settle(BREAK_EVEN_MAX_OUTPUT_TOKENS, from, BREAK_EVEN_MAX_OUTPUT_TOKENS, fires);
}

/** The smallest integer o ≥ low, on the piece that starts at `low`, with net(o) > 0 in exact arithmetic. */
function pieceRoot(model: NetModel, params: CacheAwareParams, low: number, h: number): number {
  const keep = model.keep(low);
  const stubbed = model.stubbed;
  const mKeep = laterTurnRate(keep, model.q);
  const mStub = laterTurnRate(stubbed, model.q);
  const carry = (rates: TokenRates, m: number) => rates.write + (h - 1) * m;
  const recall =
    params.recallProbability *
    (params.recallInputTokens * stubbed.write + params.recallOutputTokens * stubbed.out + model.context * mStub);
  const rest = model.context * h * (mKeep - mStub) - params.stubTokens * carry(stubbed, mStub) - recall;
  const perToken = carry(keep, mKeep);
  if (perToken > 0) return Math.max(low, Math.floor(-rest / perToken) + 1);
  return rest > 0 ? low : Infinity;
}

/**
 * Moves a closed-form root to the first integer at which the decision's own
 * predicate fires: down while the integer below also fires, up while the
 * root itself does not. Returns null past `high`.
 */
function settle(root: number, low: number, high: number, fires: (x: number) => boolean): number | null {
  if (!(root <= high + 1)) return null;
  let x = Math.max(low, root);
  for (let step = 0; step < MAX_CORRECTION_STEPS && x > low && fires(x - 1); step++) x--;
  for (let step = 0; step < MAX_CORRECTION_STEPS && x <= high && !fires(x); step++) x++;
  return x <= high && fires(x) ? x : null;
}
