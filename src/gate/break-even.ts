import { type CacheAwareParams, cacheAwareParams, cacheAwareTerms, hopSuffixRate } from "./cache-aware";
import { TOKENS_PER_MILLION } from "./constants";
import { preFilterTokens, seedTerms } from "./decision";
import { cacheInputsFor, missingCachePrice } from "./gaps";
import { carryRate, laterTurnRate, ratesAt, type TokenRates } from "./rates";
import type { BreakEven, CacheAwareInputs, CachePriceRates, PricingMode } from "./types";

/**
 * Break-evens in closed form. With everything else fixed, net is affine in
 * the horizon (for h ≥ 1) and piecewise affine in the output size (one piece
 * per side of a long-context threshold), so each break-even is the root of a
 * line, rounded to the next integer. The root is then checked against the
 * decision's own `net > 0` at the integer and the one below it, because the
 * decision computes net in floating point and may land a few ulps on the
 * other side of zero than exact arithmetic does. Where a line is flat (a zero
 * slope, e.g. cache_read 0 and q = 1), the closed form cannot say where net
 * crosses zero, so the decision's own predicate at the start of the piece
 * decides. A cache-aware output size or horizon whose requests would have to
 * guess a cache-read price (q > 0, no read price at the tier in force) never
 * fires (the gap rule), so no break-even lies there.
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
export function breakEven(mode: PricingMode, requested: CacheAwareInputs, row: CachePriceRates): BreakEven {
  const inputs = mode === "seed" ? requested : cacheInputsFor(requested, row);
  const params = cacheAwareParams(inputs);
  const model = mode === "seed" ? seedModel(row, params) : cacheModel(row, params);
  const threshold = preFilterTokens(inputs, mode);
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
  /** Whether the decision at output size o prices every term (the gap rule); always true in seed mode. */
  priced(o: number): boolean;
  /** Rates of the request that keeps an output of `o` tokens. */
  keep(o: number): TokenRates;
  stubbed: TokenRates;
  /** q, P and A (all 0 in seed mode, which has none of them). */
  q: number;
  context: number;
  suffix: number;
  /** Whether the output's first write is already paid (a retroactive offload). */
  retroactive: boolean;
  /** The output size past which `keep` switches tier, or Infinity. */
  tierFrom: number;
}

function seedModel(row: CachePriceRates, params: CacheAwareParams): NetModel {
  // The seed prices every carried token at `in`: flat rates, read = write = in.
  const inRate = (row.input ?? 0) / TOKENS_PER_MILLION;
  const outRate = (row.output ?? 0) / TOKENS_PER_MILLION;
  const flat: TokenRates = { in: inRate, out: outRate, read: inRate, write: inRate, tiered: false };
  return {
    // evaluateOffloadGate's operations, in its order.
    net: (o, h) => seedTerms(row, { ...params, outputTokens: o, horizon: h }).net,
    priced: () => true,
    keep: () => flat,
    stubbed: flat,
    q: 0,
    context: 0,
    suffix: 0,
    retroactive: false,
    tierFrom: Infinity,
  };
}

function cacheModel(row: CachePriceRates, params: CacheAwareParams): NetModel {
  const tier = row.long_context;
  const { contextTokens: ctx, suffixTokens: a, cacheTtl: ttl } = params;
  const keep = (o: number) => ratesAt(row, ctx + o + a, ttl);
  const stubbed = ratesAt(row, ctx + params.stubTokens + a, ttl);
  return {
    net: (o, h) => cacheAwareTerms(row, { ...params, outputTokens: o, horizon: h }).net,
    priced: (o) => missingCachePrice([keep(o), stubbed], params.cacheHitRate) === null,
    keep,
    stubbed,
    q: params.cacheHitRate,
    context: ctx,
    suffix: a,
    retroactive: params.offloadAt === "retroactive",
    // keep is tiered once P + o + A > threshold_tokens, i.e. from o = floor(threshold − P − A) + 1.
    tierFrom: tier === undefined ? Infinity : Math.max(0, Math.floor(tier.threshold_tokens - ctx - a) + 1),
  };
}

/** The parts of net that do not scale with the output, at rates K and T. */
function perRequest(model: NetModel, keep: TokenRates, params: CacheAwareParams) {
  const stubbed = model.stubbed;
  const mKeep = laterTurnRate(keep, model.q);
  const mStub = laterTurnRate(stubbed, model.q);
  const recall =
    params.recallProbability *
    (params.recallInputTokens * stubbed.write +
      params.recallOutputTokens * stubbed.out +
      model.context * mStub +
      model.suffix * hopSuffixRate(stubbed, mStub, params.recallPlacement));
  // Per output token: carry(K, h) on entry, h·m(K) retroactively.
  const outputRate = (h: number) => (model.retroactive ? h * mKeep : carryRate(keep, mKeep, h));
  return { stubbed, mKeep, mStub, recall, outputRate };
}

/**
 * net(h) = net(1) + (h − 1)·a for h ≥ 1, with
 * a = (O + P + A)·m(K) − (P + A + S)·m(T); net(0) = −recall never fires.
 * The smallest h with net(h) > 0 is 1 when net(1) > 0, else
 * floor(−net(1)/a) + 2 when a > 0. When a ≤ 0 net never rises with h, so
 * only h = 1 can fire: the decision's own net at 1 says whether it does (the
 * closed form's net(1) may sit a few ulps on the other side of zero).
 */
function horizonBreakEven(model: NetModel, params: CacheAwareParams): number | null {
  const o = params.outputTokens;
  const { stubbed, mKeep, mStub, recall, outputRate } = perRequest(model, model.keep(o), params);
  const p = model.context;
  const a = model.suffix;
  const s = params.stubTokens;
  const net1 = o * outputRate(1) + p * (mKeep - mStub) - a * (stubbed.write - mKeep) - s * stubbed.write - recall;
  const slope = (o + p + a) * mKeep - (p + a + s) * mStub;
  if (!model.priced(o)) return null;
  const fires = (h: number) => model.net(o, h) > 0;
  let root: number;
  if (net1 > 0) root = 1;
  else if (slope > 0) root = Math.floor(-net1 / slope) + 2;
  else root = fires(1) ? 1 : Infinity;
  return settle(root, 1, BREAK_EVEN_MAX_HORIZON, fires);
}

/**
 * At a fixed h ≥ 1, net(O) = O·c(K) + rest, with c(K) = carry(K, h) on
 * entry and h·m(K) retroactively, affine on each side of the tier boundary:
 * solve the untiered piece, then the tiered one. At h = 0 nothing is carried
 * and net = −recall: none.
 */
function outputBreakEven(model: NetModel, params: CacheAwareParams, from: number): number | null {
  const h = params.horizon;
  if (h === 0) return null;
  const fires = (o: number) => model.priced(o) && model.net(o, h) > 0;
  const pieces: Array<[number, number]> = [
    [from, Math.min(BREAK_EVEN_MAX_OUTPUT_TOKENS, model.tierFrom - 1)],
    [Math.max(from, model.tierFrom), BREAK_EVEN_MAX_OUTPUT_TOKENS],
  ];
  for (const [low, high] of pieces) {
    // A piece whose requests lack a read price never fires.
    if (low > high || !model.priced(low)) continue;
    const root = pieceRoot(model, params, low, h, fires);
    if (root <= high) return settle(root, from, BREAK_EVEN_MAX_OUTPUT_TOKENS, fires);
  }
  // The roots may sit a few ulps past the end of the range.
  return settle(BREAK_EVEN_MAX_OUTPUT_TOKENS, from, BREAK_EVEN_MAX_OUTPUT_TOKENS, fires);
}

/**
 * The smallest integer o ≥ low, on the piece that starts at `low`, with
 * net(o) > 0 in exact arithmetic. On a flat or falling piece only `low` can
 * fire, and the decision's own predicate there says whether it does.
 */
function pieceRoot(
  model: NetModel,
  params: CacheAwareParams,
  low: number,
  h: number,
  fires: (o: number) => boolean,
): number {
  const { stubbed, mKeep, mStub, recall, outputRate } = perRequest(model, model.keep(low), params);
  const a = model.suffix;
  const stubCarry = carryRate(stubbed, mStub, h);
  const rest =
    model.context * h * (mKeep - mStub) - a * (stubCarry - h * mKeep) - params.stubTokens * stubCarry - recall;
  const perToken = outputRate(h);
  if (perToken > 0) return Math.max(low, Math.floor(-rest / perToken) + 1);
  return fires(low) ? low : Infinity;
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
