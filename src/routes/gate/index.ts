/**
 * The gate's routes, in three rooms by when they are built:
 *
 * - direct/: what startup builds, the gate's direct path (POST /v1/gate and
 *   /v1/gate/batch): the readers, the decision and its ledger record, and
 *   validators compiled from the request schemas;
 * - schemas/: the request and answer schemas, loaded on the first body the
 *   compiled validators refuse, or with the app; direct/ takes their types only;
 * - openapi/: built with the rest of the app, on the first request that
 *   needs it: the Hono routes of the OpenAPI document, POST /v1/gate/curve.
 *
 * test/node/startup.test.ts checks what startup loads. The entry takes
 * directGate through src/routes/index.ts; the app (src/routes/app.ts) takes gate.
 *
 * @example
 * app.route("/", gate);
 */

export { directGate } from "./direct";
export { gate } from "./openapi";
