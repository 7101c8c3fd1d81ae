/**
 * The front door of src/learning/: what the rest of the code may import from it.
 */
export { chainPriors, levelsOf } from "./chain";
export type { ExploreDraws } from "./explore";
export { exploreDraws, sampleHorizon, sampleUnit } from "./explore";
export { learnedFor, rootOf } from "./lookup";
export type { LearnedField, LevelSums, PooledPriors, PooledSource } from "./pool";
export { addSums, emptySums, LEARNED_FIELDS } from "./pool";
export { betaQuantile, horizonRange, unitRange } from "./ranges";
export type { FamilySummary, SessionFacts, SessionHorizon, SessionSource } from "./sessions";
export { familySummaries, isKnownAgent, MIN_FAMILY_SESSIONS, sessionHorizon } from "./sessions";
export type { FamilyRecall } from "./family";
export { familyRecall } from "./family";
