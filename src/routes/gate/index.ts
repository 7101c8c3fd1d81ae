/**
 * The gate's routes, in two rooms by when they are built:
 *
 * - hot/: what startup builds, the gate's direct path (POST /v1/gate and
 *   /v1/gate/batch): the readers, the decision and its ledger record, with
 *   validators compiled from the request schemas. It imports openapi/ for
 *   types only (test/node/startup.test.ts checks what startup loads);
 * - openapi/: built with the rest of the app, on the first request that
 *   needs it: the request and answer schemas, the Hono routes of the OpenAPI
 *   document, POST /v1/gate/curve.
 *
 * The entry takes directGate through src/routes/kernel/app.ts; the app
 * (src/routes/kernel/app.ts) takes gate.
 *
 * @example
 * app.route("/", gate);
 */
export { gate } from "./openapi/routes";
export { directGate } from "./direct/direct";
