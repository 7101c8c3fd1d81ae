/**
 * The JSON the console's browser scripts read, as the worker's own types:
 * each is inferred from the zod schema that validates or documents it, so a
 * field renamed in the worker fails the browser's type check
 * (browser/tsconfig.json, run by `npm run typecheck`). Type-only: nothing
 * here reaches the page; the scripts import it in JSDoc.
 *
 * @example
 * // In a *.client.js file:
 * // @typedef {import("./api").GateDecision} GateDecision
 */
import type { z } from "@hono/zod-openapi";
import type { GateCurveSchema } from "../../gate/answer/curve-schema";
import type { LearningViewSchema } from "../../learning/schema";
import type { SavingsReportSchema } from "../../ledger/schema";
import type { PricingRow } from "../../../store/schema";

export type { ErrorBody } from "../../../http/errors";
export type { GateDecisionBody as GateDecision } from "../../gate/answer/decision-schema";
export type { PlanBody as Plan, PlanRequest } from "../../plan/schema";

/** POST /v1/gate/curve's answer. */
export type GateCurve = z.infer<typeof GateCurveSchema>;
/** One point of either curve. */
export type CurvePoint = GateCurve["horizon"][number];
/** GET /v1/savings's answer. */
export type SavingsReport = z.infer<typeof SavingsReportSchema>;
/** GET /v1/learning's answer. */
export type LearningView = z.infer<typeof LearningViewSchema>;

/** The page's own `#console-data` JSON (page.tsx writes it): each row as stored, or its raw text when invalid. */
export interface ConsoleData {
  rows: Record<string, PricingRow | string>;
}
