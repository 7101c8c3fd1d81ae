/**
 * The front door of src/ledger/transport/: what the rest of the code may import from it.
 */
export { gatherRows, gatherSums, gatherToolPairs, gatherToolSessions } from "./ask";
export { ledgerShard } from "./client";
export { chunkMessages, ledgerMessage } from "./message";
export { handDecisions } from "./queue";
export type { Indexed } from "./reports";
export { reportOutcomes, reportSessions } from "./reports";
export { forgetWrittenShards, writtenShards } from "./written";
