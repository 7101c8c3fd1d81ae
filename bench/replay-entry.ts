// What bench/replay.mjs bundles: replay itself and the synthetic transcripts of its tests.
export * from "../src/replay";
export { claudeCodeSession } from "../test/replay/fixtures";
