/**
 * The gate's routes, in two rooms by when they are built:
 *
 * - request/: what startup builds, the gate's direct path (POST /v1/gate
 *   and /v1/gate/batch): the request schemas, the readers, the decision and
 *   its ledger record. It imports answer/ for types only
 *   (test/node/startup.test.ts checks what startup loads);
 * - answer/: built with the rest of the app, on the first request that
 *   needs it: the answers' schemas, the Hono routes of the OpenAPI
 *   document, POST /v1/gate/curve.
 *
 * The entry (src/index.ts) imports ./request/direct.ts itself; the app
 * (src/routes/index.ts) imports this door.
 *
 * @example
 * app.route("/", gate);
 */
export { gate } from "./answer/routes";
// Routes that a gate key guards elsewhere (the ledger, the plan) answer the same way.
export { CALLER_ERRORS } from "./answer/caller";
export { directGate } from "./request/direct";
