import {
  addClusters,
  addMoments,
  type ClusterSums,
  clusteredInterval,
  type Interval,
  type Moments,
  NO_CLUSTERS,
  NO_MOMENTS,
} from "./stats";

/**
 * The savings report: per-shard sums (what each shard's SQL returns), merged
 * by adding, then turned into means, intervals and a verdict. Pure.
 */

/** One time bucket's sums. `start` is the bucket's first millisecond. */
export interface SeriesBucket {
  start: number;
  decisions: number;
  fired: number;
  fired_with_outcome: number;
  predicted_net_usd: number;
  realized_net_usd: number;
}

/** Everything one shard sums over the decisions, outcomes and sessions in a window. */
export interface LedgerSums {
  decisions: number;
  fired: number;
  holdout_decisions: number;
  outcomes: number;
  /** Fired decisions with an outcome: their predicted and realized nets, and realized − predicted. */
  fired_with_outcome: number;
  predicted_net_usd: number;
  realized_net_usd: number;
  gap: Moments;
  /** Over fired decisions with an outcome: recalls, and the p each was priced with. */
  recalled: number;
  prior_recall_sum: number;
  /**
   * Over the proxy's observed fired decisions with an outcome (docs/design/proxy.md §6): how many,
   * the charged recalls (the low end) and those with any detection (the high end).
   */
  observed_recall: RecallRangeSums;
  /** The same per observed tool, by tool name (ordered by it): the savings report's per-tool rows. */
  observed_recall_by_tool: ToolRecallRange[];
  /** Over every decision with an outcome: turns_after, and the horizon each was priced with. */
  horizon: Moments;
  prior_horizon_sum: number;
  /** Over outcomes that sent cached_turns: q̂, and the q each was priced with. */
  cache_hit_rate: Moments;
  prior_cache_hit_rate_sum: number;
  /** Decisions outside the holdout that did not fire, with a positive counterfactual net. */
  missed_decisions: number;
  missed_savings_usd: number;
  /** Every billed session's priced cost (the arms are per tool: ./verdicts.ts). */
  sessions: Moments;
  /**
   * Over billed sessions that sent `cache_misses` (the provider's cache diagnostics): how many, and
   * the input tokens that missed the cache right after one of the gate's own rewrites and elsewhere.
   */
  cache_misses: CacheMissSums;
  /** The clusters (sessions) of gap, horizon, q̂ and recall, for the clustered intervals of docs/design/ledger.md §5. */
  clusters: { gap: ClusterSums; horizon: ClusterSums; cache_hit_rate: ClusterSums; recall: ClusterSums };
  series: SeriesBucket[];
}

/** Counts of a recall range: outcomes, and the recalled at its low and high ends. */
export type RecallRangeSums = {
  n: number;
  low: number;
  high: number;
};

/** One observed tool's recall-range counts. */
export type ToolRecallRange = RecallRangeSums & { tool_name: string };

/** Billed sessions with diagnosed cache misses, and the missed input tokens by cause. */
export interface CacheMissSums {
  sessions: number;
  after_gate_rewrite: number;
  other: number;
}

/** The sums of an empty ledger. */
export function emptySums(): LedgerSums {
  return {
    decisions: 0,
    fired: 0,
    holdout_decisions: 0,
    outcomes: 0,
    fired_with_outcome: 0,
    predicted_net_usd: 0,
    realized_net_usd: 0,
    gap: { ...NO_MOMENTS },
    recalled: 0,
    prior_recall_sum: 0,
    observed_recall: { n: 0, low: 0, high: 0 },
    observed_recall_by_tool: [],
    horizon: { ...NO_MOMENTS },
    prior_horizon_sum: 0,
    cache_hit_rate: { ...NO_MOMENTS },
    prior_cache_hit_rate_sum: 0,
    missed_decisions: 0,
    missed_savings_usd: 0,
    cache_misses: { sessions: 0, after_gate_rewrite: 0, other: 0 },
    sessions: { ...NO_MOMENTS },
    clusters: {
      gap: { ...NO_CLUSTERS },
      horizon: { ...NO_CLUSTERS },
      cache_hit_rate: { ...NO_CLUSTERS },
      recall: { ...NO_CLUSTERS },
    },
    series: [],
  };
}

/**
 * Two shards' sums as one ledger's: every count and sum added, time buckets
 * matched by their start.
 *
 * @example
 * [a, b, c].reduce(mergeSums, emptySums())
 */
export function mergeSums(a: LedgerSums, b: LedgerSums): LedgerSums {
  const buckets = new Map<number, SeriesBucket>();
  for (const bucket of [...a.series, ...b.series]) {
    const held = buckets.get(bucket.start);
    buckets.set(
      bucket.start,
      held === undefined
        ? { ...bucket }
        : {
            start: bucket.start,
            decisions: held.decisions + bucket.decisions,
            fired: held.fired + bucket.fired,
            fired_with_outcome: held.fired_with_outcome + bucket.fired_with_outcome,
            predicted_net_usd: held.predicted_net_usd + bucket.predicted_net_usd,
            realized_net_usd: held.realized_net_usd + bucket.realized_net_usd,
          },
    );
  }
  return {
    decisions: a.decisions + b.decisions,
    fired: a.fired + b.fired,
    holdout_decisions: a.holdout_decisions + b.holdout_decisions,
    outcomes: a.outcomes + b.outcomes,
    fired_with_outcome: a.fired_with_outcome + b.fired_with_outcome,
    predicted_net_usd: a.predicted_net_usd + b.predicted_net_usd,
    realized_net_usd: a.realized_net_usd + b.realized_net_usd,
    gap: addMoments(a.gap, b.gap),
    recalled: a.recalled + b.recalled,
    prior_recall_sum: a.prior_recall_sum + b.prior_recall_sum,
    observed_recall: {
      n: a.observed_recall.n + b.observed_recall.n,
      low: a.observed_recall.low + b.observed_recall.low,
      high: a.observed_recall.high + b.observed_recall.high,
    },
    observed_recall_by_tool: mergeToolRanges(a.observed_recall_by_tool, b.observed_recall_by_tool),
    horizon: addMoments(a.horizon, b.horizon),
    prior_horizon_sum: a.prior_horizon_sum + b.prior_horizon_sum,
    cache_hit_rate: addMoments(a.cache_hit_rate, b.cache_hit_rate),
    prior_cache_hit_rate_sum: a.prior_cache_hit_rate_sum + b.prior_cache_hit_rate_sum,
    missed_decisions: a.missed_decisions + b.missed_decisions,
    missed_savings_usd: a.missed_savings_usd + b.missed_savings_usd,
    sessions: addMoments(a.sessions, b.sessions),
    cache_misses: {
      sessions: a.cache_misses.sessions + b.cache_misses.sessions,
      after_gate_rewrite: a.cache_misses.after_gate_rewrite + b.cache_misses.after_gate_rewrite,
      other: a.cache_misses.other + b.cache_misses.other,
    },
    clusters: {
      gap: addClusters(a.clusters.gap, b.clusters.gap),
      horizon: addClusters(a.clusters.horizon, b.clusters.horizon),
      cache_hit_rate: addClusters(a.clusters.cache_hit_rate, b.clusters.cache_hit_rate),
      recall: addClusters(a.clusters.recall, b.clusters.recall),
    },
    series: [...buckets.values()].sort((x, y) => x.start - y.start),
  };
}

/** Two shards' per-tool range counts as one, added by tool, ordered by tool name. */
function mergeToolRanges(a: readonly ToolRecallRange[], b: readonly ToolRecallRange[]): ToolRecallRange[] {
  const tools = new Map<string, ToolRecallRange>();
  for (const row of [...a, ...b]) {
    const held = tools.get(row.tool_name);
    tools.set(
      row.tool_name,
      held === undefined
        ? { ...row }
        : { tool_name: row.tool_name, n: held.n + row.n, low: held.low + row.low, high: held.high + row.high },
    );
  }
  return [...tools.values()].sort((x, y) => (x.tool_name < y.tool_name ? -1 : x.tool_name > y.tool_name ? 1 : 0));
}

/**
 * A recall range's rates from its counts: low and high ÷ n, null ends when n is 0.
 *
 * @example
 * recallRangeOf({ n: 5, low: 2, high: 4 }) // { n: 5, low: 0.4, high: 0.8 }
 */
export function recallRangeOf(counts: RecallRangeSums): { n: number; low: number | null; high: number | null } {
  return { n: counts.n, low: ratio(counts.low, counts.n), high: ratio(counts.high, counts.n) };
}

/** A verdict on treatment − holdout: `losing` when it costs more, `saving` when less. */
export type Verdict = "saving" | "losing" | "inconclusive";

const ratio = (num: number, den: number) => (den > 0 ? num / den : null);

/** A proportion's clustered interval, kept inside [0, 1]. */
function clamped(ci: Interval): Interval {
  return ci === null ? null : [Math.max(0, ci[0]), Math.min(1, ci[1])];
}

/**
 * The report's per-decision figures from the merged sums: the note's list,
 * each mean with its 95% interval clustered by session (docs/design/ledger.md §5).
 * The holdout's figures come from ./verdicts.ts.
 *
 * @example
 * savingsFigures(mergedSums).horizon.ci95 // [3.1, 4.4]: clustered by session
 */
export function savingsFigures(sums: LedgerSums) {
  const c = sums.clusters;
  const gap = clusteredInterval(sums.gap.n, sums.gap.sum, c.gap);
  const horizon = clusteredInterval(sums.horizon.n, sums.horizon.sum, c.horizon);
  const cache = clusteredInterval(sums.cache_hit_rate.n, sums.cache_hit_rate.sum, c.cache_hit_rate);
  const recall = clusteredInterval(sums.fired_with_outcome, sums.recalled, c.recall);
  return {
    decisions: sums.decisions,
    fired: sums.fired,
    holdout_decisions: sums.holdout_decisions,
    outcomes: sums.outcomes,
    net: {
      fired_with_outcome: sums.fired_with_outcome,
      predicted_usd: sums.predicted_net_usd,
      realized_usd: sums.realized_net_usd,
      mean_gap_usd: gap.mean,
      mean_gap_ci95: gap.ci95,
    },
    recall: {
      n: sums.fired_with_outcome,
      realized: ratio(sums.recalled, sums.fired_with_outcome),
      ci95: clamped(recall.ci95),
      prior: ratio(sums.prior_recall_sum, sums.fired_with_outcome),
    },
    // The proxy's observed decisions: the recall rate as a range, as replay gives it (docs/design/learning.md §8).
    recall_range: recallRangeOf(sums.observed_recall),
    horizon: {
      n: horizon.n,
      realized_mean: horizon.mean,
      ci95: horizon.ci95,
      prior_mean: ratio(sums.prior_horizon_sum, sums.horizon.n),
    },
    cache_hit_rate: {
      n: cache.n,
      realized_mean: cache.mean,
      ci95: clamped(cache.ci95),
      prior_mean: ratio(sums.prior_cache_hit_rate_sum, sums.cache_hit_rate.n),
    },
    missed_savings: { decisions: sums.missed_decisions, usd: sums.missed_savings_usd },
    // The provider's own word on cache misses, the gate's rewrites apart from the rest (docs/api/ledger.md).
    cache_misses: { ...sums.cache_misses },
    series: sums.series,
  };
}

/** Bucket widths the series uses: a minute, an hour, a day. */
export const BUCKET_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/**
 * The series' bucket for a window: minutes up to 3 hours, hours up to 8
 * days, days beyond, so a chart has at most about 200 points.
 *
 * @example
 * bucketFor(0, 3_600_000) // "minute"
 */
export function bucketFor(from: number, to: number): keyof typeof BUCKET_MS {
  const span = to - from;
  if (span <= 3 * BUCKET_MS.hour) return "minute";
  if (span <= 8 * BUCKET_MS.day) return "hour";
  return "day";
}
