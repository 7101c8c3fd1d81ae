/**
 * The learner's sums for one level (tenant, tool, model or size band) and the
 * size bands, as plain data: the ledger counts them, the learned value stores
 * them, replay estimates them (docs/design/learning.md §1).
 *
 * @module
 */

/** What one level observed over the learning window, as sums that merge by adding. */
export interface LevelSums {
  /** p: fired decisions with an outcome, and how many of them were recalled. */
  p_n: number;
  p_r: number;
  /** h: decisions with an outcome (either arm), and Σ turns_after, Σ turns_after². */
  h_n: number;
  h_sum: number;
  h_sumsq: number;
  /** q: outcomes that sent cached_turns, Σ cached_turns and Σ turns_after over them. */
  q_n: number;
  q_cached: number;
  q_turns: number;
}

/**
 * No observations: the zero of merging.
 *
 * @example
 * addSums(emptySums(), s) // equals s
 */
export function emptySums(): LevelSums {
  return { p_n: 0, p_r: 0, h_n: 0, h_sum: 0, h_sumsq: 0, q_n: 0, q_cached: 0, q_turns: 0 };
}

/**
 * Two sets of sums as one (shards, a tool's models into the tool, transcripts into a folder).
 *
 * @example
 * addSums({ ...emptySums(), p_n: 2, p_r: 1 }, { ...emptySums(), p_n: 3 }).p_n // 5
 */
export function addSums(a: LevelSums, b: LevelSums): LevelSums {
  return {
    p_n: a.p_n + b.p_n,
    p_r: a.p_r + b.p_r,
    h_n: a.h_n + b.h_n,
    h_sum: a.h_sum + b.h_sum,
    h_sumsq: a.h_sumsq + b.h_sumsq,
    q_n: a.q_n + b.q_n,
    q_cached: a.q_cached + b.q_cached,
    q_turns: a.q_turns + b.q_turns,
  };
}

/**
 * Size bands: recall grows with an output's size, so p is learned per tool
 * and band as well as per tool. A band is a child level of its tool: one with
 * no observations passes the tool's value through (docs/design/learning.md).
 */
export const SIZE_BANDS = ["lt2k", "2k-10k", "ge10k"] as const;
export type SizeBand = (typeof SIZE_BANDS)[number];

/** The lower edges of the second and third bands, in output tokens. */
export const BAND_EDGES = [2_000, 10_000] as const;

/**
 * The band an output of this many tokens falls in.
 *
 * @example
 * bandOf(1_999) // "lt2k"
 * bandOf(2_000) // "2k-10k"
 * bandOf(10_000) // "ge10k"
 */
export function bandOf(outputTokens: number): SizeBand {
  if (outputTokens < BAND_EDGES[0]) return "lt2k";
  return outputTokens < BAND_EDGES[1] ? "2k-10k" : "ge10k";
}
