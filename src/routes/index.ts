/**
 * The routes' front door. Startup takes the direct paths from here (the
 * gate's and GET /healthz's); the app itself (./app.ts, every route and the
 * OpenAPI document) is imported dynamically by the entry, on the first
 * request that needs it (docs/performance.md § Cold start).
 *
 * @example
 * const answer = directHealth(request) ?? (await directGate(request, env, ctx));
 */
export type { AppType } from "./app";
// The direct path itself, not ./gate's door: esbuild splits chunks by file,
// and that door also leads to the OpenAPI routes the app imports.
export { directGate } from "./gate/direct";
export { directHealth } from "./health-ok";
