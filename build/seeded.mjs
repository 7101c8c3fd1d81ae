// mulberry32: the one seeded generator the benchmarks (bench/) and the
// simulated worlds (scripts/simulate/) draw from, so every run draws the same.

/**
 * A small, fast, seeded generator of uniform draws in [0, 1).
 *
 * @example
 * const next = seeded(42);
 * const draw = next(); // the same sequence on every run
 */
export function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
