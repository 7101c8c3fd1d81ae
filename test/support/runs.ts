/**
 * How many cases a property or fuzz test runs: its own count, scaled by
 * TEST_RUNS (vitest.config.ts passes it to the worker as a binding). CI
 * leaves it unset, so every test keeps its count; `TEST_RUNS=0.1 npm test`
 * is a quick local pass at a tenth of them.
 *
 * @module
 */
import { env } from "cloudflare:workers";

const scale = parseScale((env as unknown as { TEST_RUNS?: string }).TEST_RUNS);

function parseScale(text: string | undefined): number {
  if (text === undefined || text === "") return 1;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`TEST_RUNS must be a positive number (a scale: 1 is CI's counts); got ${JSON.stringify(text)}`);
  return value;
}

/**
 * A test's case count under TEST_RUNS, never below one.
 *
 * @example
 * fc.assert(property, { seed: SEED, numRuns: runs(1_000) }) // 1,000 in CI, 100 with TEST_RUNS=0.1
 */
export function runs(count: number): number {
  return Math.max(1, Math.round(count * scale));
}
