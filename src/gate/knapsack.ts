/**
 * A 0/1 knapsack by branch and bound: items taken best value per weight
 * first, each branch cut where even its fractional (LP) fill cannot beat the
 * best found so far (or the floor the caller must beat). The first leaf it
 * reaches is the greedy fill, so a search whose node budget has run out is
 * never worse than greedy; within the budget it is exact. Pure.
 */

/** Nodes one knapsack may branch at when no budget is shared: exact for every case up to ~12 items. */
export const KNAPSACK_NODE_LIMIT = 4_096;

/**
 * Nodes several searches share (a clearing plan's, say): each search spends
 * from it, and once it is spent every search left follows only its greedy
 * fill. `cut` records that some branch worth exploring was not: the answer
 * is then the best found, not provably the best.
 */
export interface NodeBudget {
  left: number;
  cut: boolean;
}

/**
 * A fresh budget of `nodes` nodes.
 *
 * @example
 * const budget = nodeBudget(4_096);
 * knapsack(values, weights, capacity, { budget }); knapsack(other, weights, capacity, { budget });
 * budget.cut // true when either search stopped short
 */
export function nodeBudget(nodes: number): NodeBudget {
  return { left: nodes, cut: false };
}

/** How a knapsack is bounded. */
export interface KnapsackOptions {
  /** Total weight must stay strictly below the capacity (default: at or below). */
  strict?: boolean;
  /** Only a subset worth more than this counts (default 0). */
  above?: number;
  /** The nodes it may branch at, shared with other searches; default: a budget of its own of KNAPSACK_NODE_LIMIT. */
  budget?: NodeBudget;
}

/**
 * The subset of items (indexes into `values`) with the greatest total value
 * whose total weight stays within `capacity`, or null when no subset that
 * fits is worth more than `above` (the empty subset, worth 0, counts when
 * `above` is negative). Weights must be positive; values at or below 0 are
 * never taken.
 *
 * @example
 * knapsack([6, 10, 12], [1, 2, 3], 5) // [1, 2]: value 22, weight 5
 * knapsack([6, 10, 12], [1, 2, 3], 5, { above: 22 }) // null
 */
export function knapsack(
  values: readonly number[],
  weights: readonly number[],
  capacity: number,
  { strict = false, above = 0, budget = nodeBudget(KNAPSACK_NODE_LIMIT) }: KnapsackOptions = {},
): number[] | null {
  const items: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i]! > 0) items.push(i);
  items.sort((a, b) => values[b]! / weights[b]! - values[a]! / weights[a]!);
  const n = items.length;
  const taken = new Uint8Array(n);
  let best: number[] | null = null;
  let bestValue = above;

  // The LP bound: fill from item k on in ratio order, the first that does not fit taken in part.
  const bound = (k: number, value: number, weight: number): number => {
    for (let i = k; i < n; i++) {
      const item = items[i]!;
      const w = weights[item]!;
      if (weight + w > capacity) return value + (values[item]! * (capacity - weight)) / w;
      value += values[item]!;
      weight += w;
    }
    return value;
  };

  const visit = (k: number, value: number, weight: number): void => {
    budget.left--;
    if (value > bestValue) {
      bestValue = value;
      best = [];
      for (let i = 0; i < k; i++) if (taken[i] === 1) best.push(items[i]!);
    }
    if (k === n || bound(k, value, weight) <= bestValue) return;
    const item = items[k]!;
    const w = weight + weights[item]!;
    const take = strict ? w < capacity : w <= capacity;
    if (take) {
      taken[k] = 1;
      visit(k + 1, value + values[item]!, w);
      taken[k] = 0;
    }
    // Past the budget, only the greedy fill's own path goes on: skipping an item that does not fit.
    if (!take || budget.left > 0) visit(k + 1, value, weight);
    else if (bound(k + 1, value, weight) > bestValue) budget.cut = true;
  };
  visit(0, 0, 0);
  return best;
}
