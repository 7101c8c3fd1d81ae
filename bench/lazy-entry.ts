/**
 * For the cold-start comparison only (bench/startup.mjs): the entry as it
 * was before the app moved back to startup, building the app with a dynamic
 * import on the first request. Never deployed.
 */
type App = (typeof import("../src/index"))["default"];

let app: Promise<App> | undefined;

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    app ??= import("../src/index").then((module) => module.default);
    return (await app).fetch(request, env, ctx);
  },
};
export { LedgerShard } from "../src/ledger";
