/**
 * @module replay
 *
 * Replay: real transcripts parsed into one normalized trace, every model
 * call's bill rebuilt and checked against the recorded one, and the same
 * calls priced under each policy (docs/replay.md). Pure: no I/O, no clock,
 * no env, so the CLI, the console's page and the tests share it. Imports
 * only the core.
 *
 * @example
 * const { trace, issues } = parseTranscript(text, path);
 * const result = trace && replayTrace(trace, priceBook(seed.models));
 */
export * from "./bill";
export * from "./chart";
export * from "./formats";
export { GATE_LEARNED, gateLearned, type LearnedDecision, type SessionPriors } from "./learned";
export { hindsightSavings, ORACLE, ORACLE_ALL_RECALLED, oracle, type RecallEnd } from "./oracle";
export * from "./policies";
export * from "./pricing";
export * from "./priors";
export * from "./recalls";
export * from "./report";
export * from "./run";
export * from "./simulate";
export * from "./summary";
