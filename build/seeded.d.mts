// Types of ./seeded.mjs for the TypeScript that imports it.

/** mulberry32: a small, fast, seeded generator of uniform draws in [0, 1). */
export function seeded(seed: number): () => number;
