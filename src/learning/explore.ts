/**
 * Exploration by Thompson sampling (docs/design/learning.md §3.4): on an
 * exploring (session, tool), p is one draw from its posterior and h one draw
 * from its mean's, so a value that sits a little on the wrong side of
 * break-even is priced on both sides of it, in proportion to how likely
 * each side is. A lower credible bound could only ever test one side. The
 * draws are hashes of (tenant, session, tool), apart from the exploring
 * hash itself, so an answer is reproducible. Pure.
 *
 * @module
 */
import { normalQuantile, unitHash } from "../ledger";
import type { PooledField } from "./pool";
import { LEARNED_RANGES } from "./pool";
import { betaQuantile } from "./ranges";

/** Two uniform draws in (0, 1) for one exploring (session, tool): p's and h's. */
export interface ExploreDraws {
  p: number;
  h: number;
}

// Kept off 0 and 1, where the quantiles run to the ends of their ranges.
const open = (u: number) => Math.min(1 - 1e-9, Math.max(1e-9, u));

/**
 * The uniform draws of an exploring (session, tool).
 *
 * @example
 * exploreDraws("acme", "s-1", "read_file") // the same draws on every call
 */
export function exploreDraws(tenant: string, session: string, tool: string): ExploreDraws {
  const key = `${tenant}\u0000${session}\u0000${tool}\u0000thompson`;
  return { p: open(unitHash(`${key}\u0000p`)), h: open(unitHash(`${key}\u0000h`)) };
}

/**
 * p drawn from Beta(m·c, (1 − m)·c), c the concentration at the most
 * specific level with observations: the `u` quantile. A mean of 0 or 1 is its own draw.
 *
 * @example
 * sampleUnit({ value: 0.5, n: 40, concentration: 50 }, 0.5) // 0.5
 */
export function sampleUnit(field: Pick<PooledField, "value" | "concentration">, u: number): number {
  const m = field.value;
  if (m <= 0 || m >= 1) return m;
  return betaQuantile(u, m * field.concentration, (1 - m) * field.concentration);
}

/**
 * h's mean drawn from Normal(m, s² ÷ c) (the credible range's model, §3.3), clipped to the horizons a
 * request may send; the mean itself without a standard deviation (n < 2).
 *
 * @example
 * sampleHorizon({ value: 4, n: 30, concentration: 40, sd: 2 }, 0.5) // 4
 */
export function sampleHorizon(field: Pick<PooledField, "value" | "concentration" | "sd">, u: number): number {
  if (field.sd === null) return field.value;
  const [lo, hi] = LEARNED_RANGES.horizon;
  const drawn = field.value + (normalQuantile(u) * field.sd) / Math.sqrt(field.concentration);
  return Math.min(hi, Math.max(lo, drawn));
}
