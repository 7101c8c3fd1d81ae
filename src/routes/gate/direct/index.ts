/**
 * The front door of src/routes/gate/direct/: what the rest of the code may import from it.
 */
export { answerBatch } from "./batch";
export { coreInputs, decideRequest, orThrow } from "./decide";
export { directGate } from "./direct";
export { pricesOf } from "./ledger";
export { prepareItems } from "./prepare";
