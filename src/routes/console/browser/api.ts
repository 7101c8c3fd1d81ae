/**
 * The JSON the console's browser scripts read, as the worker's own route
 * types: taken from the clients' generated copy of them
 * (clients/typescript/src/app-type.ts, `hono`'s types only), so the browser's
 * type check (./tsconfig.json) needs none of the worker's modules and no
 * Workers types. ../api-check.ts proves, in the worker's own type check, that
 * each equals the type the worker's schema infers: a field renamed in the
 * worker, or a stale generated copy, fails `npm run typecheck`.
 *
 * @example
 * // In a *.client.js file:
 * // @typedef {import("./api").GateDecision} GateDecision
 */
import type { GateSchema } from "../../../../clients/typescript/src/app-type";

/** A route's answer with this status. */
type Answer<Path extends keyof GateSchema, Method extends keyof GateSchema[Path], Status extends number = 200> =
  Extract<GateSchema[Path][Method], { status: Status }> extends { output: infer Output } ? Output : never;

/** POST /v1/gate's decision. */
export type GateDecision = Answer<"/v1/gate", "$post">;
/** POST /v1/gate/curve's answer. */
export type GateCurve = Answer<"/v1/gate/curve", "$post">;
/** One point of either curve. */
export type CurvePoint = GateCurve["horizon"][number];
/** POST /v1/plan's answer, and its request. */
export type Plan = Answer<"/v1/plan", "$post">;
export type PlanRequest = GateSchema["/v1/plan"]["$post"]["input"]["json"];
/** GET /v1/savings's answer. */
export type SavingsReport = Answer<"/v1/savings", "$get">;
/** GET /v1/learning's answer. */
export type LearningView = Answer<"/v1/learning", "$get">;
/** The one error shape, as POST /v1/gate answers a 400. */
export type ErrorBody = Answer<"/v1/gate", "$post", 400>;
/** One stored pricing row, as the admin API answers it. */
export type PricingRow = NonNullable<Answer<"/v1/admin/pricing/:model", "$get">["row"]>;

/** The page's own `#console-data` JSON (page.tsx writes it): each row as stored, or its raw text when invalid. */
export interface ConsoleData {
  rows: Record<string, PricingRow | string>;
}
