import { knapsack, type NodeBudget, nodeBudget } from "./knapsack";
import { type PlanModel, type PlanTerms, planTerms, recallHop } from "./plan";
import { carryCost, laterTurnRate, type TokenRates } from "./rates";

/**
 * Finding the best clearing plan (docs/design/plan.md §3). For a fixed earliest
 * member j and fixed stub-side rates T, a plan's net is j's own term plus an
 * independent term per later member,
 *   g_i = (t_i − S_i) · carry(T, h) − p_i · (Ri · T.write + Ro · T.out + P_i · m(T) + A_i · T.write),
 * so the best plan with that j is j plus every later candidate with g_i > 0:
 * exact for a row without a long-context tier, O(n) per j. With a tier, T
 * depends on the plan (tier(N′)); per j we take the plan that assumes each
 * side of the threshold and, where that plan lands on the other side, the
 * best plan that stays on the assumed side (the smallest extension that
 * drops N′ below the threshold, or the best packing that keeps it above),
 * and evaluate each exactly. Every repair of one plan spends from one node
 * budget, so a plan's whole search is bounded, not each of its up to 128
 * knapsacks.
 */

/**
 * The branch-and-bound nodes one plan's repairs share. At 64 candidates a
 * repair's node costs O(64) for its bound, so the budget caps that part of
 * a plan at a few hundred µs of CPU (docs/performance.md § The clearing plan).
 */
export const PLAN_NODE_BUDGET = 4_096;

/** The best plan found: its members (ascending indexes into `model.candidates`) and terms. */
export interface PlanChoice {
  members: number[];
  terms: PlanTerms;
  /**
   * false when the node budget ran out with a branch still worth exploring:
   * the plan is the best found, not the best the search would have found.
   */
  exact: boolean;
}

/** g_i of every candidate at one side's rates. */
interface Side {
  rates: TokenRates;
  gain: Float64Array;
  /**
   * Candidates that free tokens, in the order a repair's knapsack takes
   * them (best value per weight first), so that its sort finds them sorted.
   */
  order: number[];
}

function sideAt(model: PlanModel, rates: TokenRates, tiered: boolean): Side {
  const mStub = laterTurnRate(rates, model.q);
  const hop = model.recallIn * rates.write + model.recallOut * rates.out;
  const n = model.candidates.length;
  const gain = new Float64Array(n);
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = model.candidates[i]!;
    gain[i] = carryCost(c.tokens - c.stub, rates, mStub, model.h) - c.p * recallHop(model, c, hop, mStub, rates);
    if (c.tokens !== c.stub) order.push(i);
  }
  // Tiered, an item is worth gain / freed per token; untiered, it is the loss left out: −gain / freed.
  const ratio = (i: number) => (tiered ? 1 : -1) * (gain[i]! / freed(model, i));
  order.sort((a, b) => ratio(b) - ratio(a));
  return { rates, gain, order };
}

/**
 * The plan with the greatest net, evaluated exactly by `planTerms`, or null
 * when there is no candidate. Its net may be ≤ 0: the caller then keeps
 * everything (the empty plan, net 0), so a plan cut short by its budget is
 * still never worse than stubbing nothing.
 *
 * @example
 * bestPlan(planModel(P1, OPUS))?.members // [0, 1, 2]: stub all three
 * bestPlan(model, nodeBudget(0))?.exact // false where a repair had to stop at once
 */
export function bestPlan(model: PlanModel, budget: NodeBudget = nodeBudget(PLAN_NODE_BUDGET)): PlanChoice | null {
  const n = model.candidates.length;
  if (n === 0) return null;
  const base = model.ratesOf(0);
  const tiered = model.ratesOf(Infinity);
  // Where every plan's N′ falls on one side of the threshold (a history far above it, say), T is
  // fixed and the search is exact as for an untiered row.
  let lowest = model.total;
  let highest = model.total;
  for (let i = 0; i < n; i++) {
    const w = freed(model, i);
    if (w > 0) lowest -= w;
    else highest -= w;
  }
  const sides =
    tiered === base || highest <= model.tierThreshold
      ? [sideAt(model, base, false)]
      : lowest > model.tierThreshold
        ? [sideAt(model, tiered, true)]
        : [sideAt(model, base, false), sideAt(model, tiered, true)];
  let best: Omit<PlanChoice, "exact"> | null = null;
  const membersOf = (chosen: Uint8Array): number[] => {
    const members: number[] = [];
    for (let i = 0; i < n; i++) if (chosen[i] === 1) members.push(i);
    return members;
  };
  const consider = (chosen: Uint8Array): void => {
    const members = membersOf(chosen);
    const terms = planTerms(model, members);
    if (best === null || terms.net > best.terms.net) best = { members, terms };
  };
  const chosen = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    for (const side of sides) {
      chosen.fill(0);
      chosen[j] = 1;
      let after = model.total - freed(model, j);
      for (let i = j + 1; i < n; i++) {
        if (side.gain[i]! > 0) {
          chosen[i] = 1;
          after -= freed(model, i);
        }
      }
      consider(chosen);
      if (sides.length === 1) continue;
      const wantTier = side.rates === tiered;
      if (after > model.tierThreshold === wantTier) continue;
      // Priced at the side's rates, the unconstrained plan bounds every plan with j on that side.
      const bound = planTerms(model, membersOf(chosen), side.rates).net;
      const floor = best === null ? -Infinity : (best as PlanChoice).terms.net;
      if (bound <= floor) continue;
      const repaired = repair(model, side, j, chosen, after, wantTier, floor - bound, budget);
      if (repaired !== null) consider(repaired);
    }
  }
  return best === null ? null : { ...(best as Omit<PlanChoice, "exact">), exact: !budget.cut };
}

/** Tokens a candidate's stub frees: t_i − S_i. */
function freed(model: PlanModel, i: number): number {
  const c = model.candidates[i]!;
  return c.tokens - c.stub;
}

/**
 * The plan for j assumed one side of the threshold and landed on the other.
 * The best plan with j on that side is then a 0/1 knapsack over the later
 * candidates. To get under the threshold, every gainful stub stays in (it
 * both gains and frees tokens) and loss-making ones must be added until N′ is
 * under: the cheapest such cover leaves out the costliest set that the spare
 * freed tokens allow. To stay above it, loss-making stubs stay out and the
 * gainful ones are packed into the tokens that may still be freed; a stub
 * larger than its output frees negative tokens, so it starts in (making room)
 * and leaving it out is the item. Either way the plan is worth the bound less
 * the items' total value plus the value packed, so only a packing worth more
 * than `short` (best − bound) + that total can beat the best plan: null if none.
 */
function repair(
  model: PlanModel,
  side: Side,
  j: number,
  chosen: Uint8Array,
  after: number,
  wantTier: boolean,
  short: number,
  budget: NodeBudget,
): Uint8Array | null {
  const pool: number[] = [];
  const repaired = chosen.slice();
  // Σ freed of the stubs kept must stay below N′(j alone) − threshold to stay tiered.
  let capacity = wantTier ? model.total - freed(model, j) - model.tierThreshold : 0;
  for (const i of side.order) {
    if (i <= j) continue;
    const w = freed(model, i);
    if (w > 0 && (chosen[i] === 1) === wantTier) pool.push(i);
    if (w < 0 && wantTier) {
      pool.push(i);
      capacity -= w;
    }
  }
  const weights = pool.map((i) => Math.abs(freed(model, i)));
  // Tiered: a gainful stub's item is keeping it, a negative one's is leaving it out. Untiered: leaving a loss out.
  const values = pool.map((i) => (wantTier && freed(model, i) > 0 ? side.gain[i]! : -side.gain[i]!));
  if (!wantTier) capacity = weights.reduce((sum, w) => sum + w, 0) - (after - model.tierThreshold);
  if (wantTier ? !(capacity > 0) : capacity < 0) return null;
  const total = values.reduce((sum, v) => sum + (v > 0 ? v : 0), 0);
  const packed = knapsack(values, weights, capacity, { strict: wantTier, above: short + total, budget });
  if (packed === null) return null;
  for (const i of pool) repaired[i] = wantTier ? (freed(model, i) > 0 ? 0 : 1) : 1;
  for (const k of packed) repaired[pool[k]!] = repaired[pool[k]!] === 1 ? 0 : 1;
  return repaired;
}
