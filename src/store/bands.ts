/**
 * Size bands (issue 33 item 6): recall grows with an output's size, so p is
 * learned per tool and band as well as per tool. A band is a child level of
 * its tool: one with no observations passes the tool's value through.
 * Pure and free of zod, so the gate's startup path may import it.
 *
 * @module
 */

/** The bands, by output tokens: lt2k < 2,000 ≤ 2k-10k < 10,000 ≤ ge10k. */
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
