/**
 * The front door of src/learning/: what the rest of the code may import from it.
 */
export { chainPriors, levelsOf } from "./chain";
export { exploreDraws, sampleHorizon, sampleUnit } from "./explore";
export type { ExploreDraws } from "./explore";
export { learnedFor, rootOf } from "./lookup";
export { LEARNED_FIELDS, addSums, emptySums } from "./pool";
export type { LearnedField, LevelSums, PooledPriors, PooledSource } from "./pool";
export { betaQuantile, horizonRange, unitRange } from "./ranges";
