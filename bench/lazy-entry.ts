/**
 * For the cold-start comparison only (bench/startup.mjs): the entry as it
 * was before the gate's direct path moved back to startup, building the
 * whole app (the direct path included) with a dynamic import on the first
 * request. Never deployed.
 */
type Built = {
  app: typeof import("../src/routes/app")["default"];
  directGate: typeof import("../src/routes/gate")["directGate"];
};

let built: Promise<Built> | undefined;

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    built ??= Promise.all([import("../src/routes/app"), import("../src/routes/gate")]).then(([routes, gate]) => ({
      app: routes.default,
      directGate: gate.directGate,
    }));
    const { app, directGate } = await built;
    return directGate(request, env, ctx) ?? app.fetch(request, env, ctx);
  },
};
export { LedgerShard } from "../src/ledger";
