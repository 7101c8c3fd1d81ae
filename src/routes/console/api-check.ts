/**
 * Proof, checked by the worker's own `tsc` (never loaded at run time), that
 * the types the console's browser scripts read (./browser/api.ts, from the clients'
 * generated route types) are the types the worker's schemas infer. Each line
 * fails to compile when the two differ: a field renamed in a schema, or
 * clients/typescript/src/app-type.ts not regenerated after it
 * (`node clients/typescript/scripts/generate-types.mjs`).
 *
 * @example
 * type Fine = Fits<{ a: 1 }, { a: number }>; // true
 */
import type { z } from "@hono/zod-openapi";
import type { ErrorBody } from "../../http";
import type { PricingRow } from "../../storage/schemas";
import type { GateCurveSchema } from "../gate/openapi";
import type { GateDecisionBody } from "../gate/schemas";
import type { LearningViewSchema } from "../learning";
import type { SavingsReportSchema } from "../ledger";
import type { PlanBody, PlanRequestSchema } from "../plan";
import type * as Browser from "./browser";

/**
 * true when the browser's type and the worker's have the same fields and
 * every value the browser's admits is one the worker's allows: a field the
 * worker renames, drops, adds or retypes makes it false. (Not identity: the
 * route types come through hono's JSON view of the answer, which reads an
 * open object's `unknown` values as JSON values.)
 */
export type Fits<Browser, Worker> = [Browser] extends [Worker]
  ? [keyof Browser] extends [keyof Worker]
    ? [keyof Worker] extends [keyof Browser]
      ? true
      : false
    : false
  : false;
type Holds<T extends true> = T;

export type BrowserTypesAreTheWorkers = [
  Holds<Fits<Browser.GateDecision, GateDecisionBody>>,
  Holds<Fits<Browser.GateCurve, z.infer<typeof GateCurveSchema>>>,
  Holds<Fits<Browser.Plan, PlanBody>>,
  Holds<Fits<Browser.PlanRequest, z.input<typeof PlanRequestSchema>>>,
  Holds<Fits<Browser.SavingsReport, z.infer<typeof SavingsReportSchema>>>,
  Holds<Fits<Browser.LearningView, z.infer<typeof LearningViewSchema>>>,
  Holds<Fits<Browser.ErrorBody, ErrorBody>>,
  Holds<Fits<Browser.PricingRow, PricingRow>>,
];
