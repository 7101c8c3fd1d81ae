import { createRoute } from "@hono/zod-openapi";
import { recordPlan } from "../../analytics";
import { GATE_SECURITY } from "../../auth";
import { decidePlan, hasEligible } from "../../gate";
import type { DecideContext } from "../kernel";
import { decideContext, isRecorded, pricedAsOf, signAndRecord } from "../kernel";
import { bodyErrors, CALLER_ERRORS, createApp, json, jsonRequest } from "../kernel/openapi";
import { answerContextManagement, contextManagementRoute } from "./context-management";
import { assignPlan } from "./ledger";
import { resolvePlanRequest } from "./resolve";
import { type PlanBody, type PlanRequest, PlanRequestSchema, PlanSchema } from "./schema";

/** POST /v1/plan, for the app and its OpenAPI document. */
export const planRoute = createRoute({
  method: "post",
  path: "/v1/plan",
  summary: "Which cached tool outputs to stub on the next turn, if any (the clearing plan)",
  tags: ["plan"],
  security: GATE_SECURITY,
  request: jsonRequest(PlanRequestSchema),
  responses: {
    200: json(
      PlanSchema,
      "The plan: what to stub, what it saves, where the cached prefix breaks, each candidate alone",
    ),
    ...bodyErrors("The body is not JSON or a field is wrong; the error names its path (segments.7.tokens)"),
    ...CALLER_ERRORS,
  },
});

/**
 * POST /v1/plan's body, end to end: the gate's config and pricing lookup,
 * the pure plan, one data point and one ledger record (none in a dry run), the answer.
 *
 * @example
 * const plan = await answerPlan({ model_name: "claude-opus-4-6", segments: [...] }, context);
 * // { stub: ["c1", "c2", "c3"], net_saving_usd: 0.2773, reason_code: "plan_positive", ... }
 */
export async function answerPlan(body: PlanRequest, context: DecideContext): Promise<PlanBody> {
  const { env } = context;
  const { config, configRead, resolved, inputs, pricing } = await resolvePlanRequest(body, context, hasEligible);
  const { read } = pricing;
  const planned = decidePlan(inputs, read.lookup);
  const stale = read.stale ?? configRead.stale;
  const pricedAs =
    planned.reason_code === "no_candidates" ? null : pricedAsOf(read.lookup, pricing.effectiveAt ?? null);
  const answered = { priced_as: pricedAs, stale_pricing: stale, lifecycle: pricing.lifecycle, inputs: resolved };
  // A dry run (../kernel/openapi/dry-run.ts) answers the plan itself: no id, no holdout arm, nothing recorded.
  if (!isRecorded(body)) return { ...planned, ...answered, dry_run: true };
  const assigned = assignPlan({
    tenant: context.tenant,
    config,
    body,
    resolved,
    outcome: planned,
    pricedAs: pricedAs?.model ?? null,
    row: read.lookup.status === "priced" ? read.lookup.row : null,
    at: context.now,
  });
  const { outcome } = assigned;
  const decisionId = await signAndRecord(
    context,
    config,
    assigned,
    { model_name: body.model_name, pricedAs, stale },
    (head) => recordPlan(env.DECISIONS, { ...head, outcome, inputs: { ...resolved, segments: body.segments.length } }),
  );
  return { ...outcome, ...answered, decision_id: decisionId };
}

/**
 * POST /v1/plan: validate → load pricing → plan → record → respond.
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/plan -H 'content-type: application/json' -d '{"model_name":"claude-opus-4-6",
 *   "segments":[{"tokens":8000},{"id":"c1","tokens":42000},{"tokens":1500}]}'
 */
export const plan = createApp()
  .openapi(planRoute, async (c) => c.json(await answerPlan(c.req.valid("json"), decideContext(c)), 200))
  .openapi(contextManagementRoute, async (c) =>
    c.json(await answerContextManagement(c.req.valid("json"), decideContext(c)), 200),
  );

export type { PlanBody, PlanRequestSchema } from "./schema";
export { MAX_PLAN_CANDIDATES, MAX_SEGMENT_ID_LENGTH, WORKED_EXAMPLE_P1 } from "./schema";
