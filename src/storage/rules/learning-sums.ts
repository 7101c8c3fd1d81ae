/**
 * The consistency rule of a learned level's sums, free of zod: the schema
 * (./learning-schema.ts) and the compiled check (./checked.ts) both ask it.
 *
 * @module
 */

import type { LevelSums } from "../../gate";
import { MAX_HORIZON } from "./config-values";

/**
 * Why a level's sums could not have come from outcomes a request may send,
 * or null. Every turns_after is a whole number in [0, MAX_HORIZON], so
 * h_sum ≤ h_sumsq ≤ MAX_HORIZON · h_sum (x ≤ x² ≤ M·x for such x) and
 * h_sum ≤ h_n · MAX_HORIZON; p and q count subsets of h's outcomes. Each
 * bound survives adding shards' sums, so a merged value that breaks one was
 * written by something other than the refresh.
 *
 * @example
 * sumsInconsistency({ p_n: 1, p_r: 1, h_n: 1, h_sum: 1e300, h_sumsq: 1e300, q_n: 0, q_cached: 0, q_turns: 0 }) // "h_sum exceeds h_n × 1000000"
 */
export function sumsInconsistency(s: Readonly<LevelSums>): string | null {
  if (s.p_r > s.p_n) return "p_r exceeds p_n";
  if (s.q_cached > s.q_turns) return "q_cached exceeds q_turns";
  if (s.p_n > s.h_n || s.q_n > s.h_n) return "p_n or q_n exceeds h_n";
  if (s.h_sum > s.h_n * MAX_HORIZON) return `h_sum exceeds h_n × ${MAX_HORIZON}`;
  if (s.h_sumsq < s.h_sum || s.h_sumsq > s.h_sum * MAX_HORIZON) return "h_sumsq is inconsistent with h_sum";
  if (s.q_turns > s.h_sum) return "q_turns exceeds h_sum";
  return null;
}
