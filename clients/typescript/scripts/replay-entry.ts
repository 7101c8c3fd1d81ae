// What the client package takes from replay (src/replay's front door): the transcript parser, bundled
// by scripts/build.mjs into dist/replay-transcript.js for src/transcript-report.ts.
export { parseTranscript } from "../../../src/replay/index";
