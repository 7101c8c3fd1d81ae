import { createRoute } from "@hono/zod-openapi";
import { recordPlan } from "../../analytics/plan";
import { GATE_SECURITY } from "../../auth/gate";
import { decidePlan, hasEligible, type PlanInputs } from "../../gate";
import { bodyErrors, json, jsonRequest } from "../../http/schema";
import { DEFAULT_GATE_CONFIG } from "../../store/config";
import { readGateConfig, readPricing } from "../../store/read";
import { createApp } from "../app";
import { CALLER_ERRORS } from "../gate/answer/caller";
import { decideContext } from "../gate/request/context";
import { pricedAsOf } from "../gate/request/decide";
import { isRecorded } from "../gate/request/dry-run";
import { NOT_LOOKED_UP, withLifecycle, type DecideContext, type ResolvedPricing } from "../gate/request/prepare";
import { handDecisions } from "../../ledger";
import { assignPlan } from "./ledger";
import { PlanRequestSchema, PlanSchema, type PlanBody, type PlanRequest, type ResolvedPlanInputs } from "./schema";

/** POST /v1/plan, for the app and its OpenAPI document. */
export const planRoute = createRoute({
  method: "post",
  path: "/v1/plan",
  summary: "Which cached tool outputs to stub on the next turn, if any (the clearing plan)",
  tags: ["plan"],
  security: GATE_SECURITY,
  request: jsonRequest(PlanRequestSchema),
  responses: {
    200: json(PlanSchema, "The plan: what to stub, what it saves, where the cached prefix breaks, each candidate alone"),
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
  const { env, waitUntil } = context;
  const configRead = await readGateConfig(env.PRICING, waitUntil);
  const config = configRead.ok ? configRead.config : DEFAULT_GATE_CONFIG;
  const resolved: ResolvedPlanInputs = {
    model_name: body.model_name,
    horizon: body.horizon ?? config.expected_conversation_depth,
    recall_probability: body.recall_probability ?? config.p_recall,
    cache_hit_rate: body.cache_hit_rate ?? config.cache_hit_rate,
    cache_ttl: body.cache_ttl ?? "5m",
    large_offload_threshold_tokens: body.large_offload_threshold_tokens ?? config.large_offload_threshold_tokens,
    stub_tokens: body.stub_tokens ?? config.stub_tokens,
    recall_input_tokens: body.recall_input_tokens ?? config.recall_input_tokens,
    recall_output_tokens: body.recall_output_tokens ?? config.recall_output_tokens,
    history_tokens: body.segments.reduce((sum, segment) => sum + segment.tokens, 0),
  };
  const inputs: PlanInputs = { ...resolved, segments: body.segments };
  let pricing: ResolvedPricing;
  // Priors we cannot read are priors we cannot trust: do not stub.
  if (!configRead.ok) pricing = { read: { lookup: { status: "unavailable", detail: configRead.detail }, stale: null }, lifecycle: null };
  // With no candidate at or above the pre-filter the plan needs no pricing, so none is read.
  else if (!hasEligible(inputs)) pricing = NOT_LOOKED_UP;
  // The gate's own lookup: aliases, and a retired model priced as its replacement.
  else pricing = await withLifecycle(body.model_name, (model) => readPricing(env.PRICING, model, config, waitUntil), context.today, context.now);

  const { read } = pricing;
  const planned = decidePlan(inputs, read.lookup);
  const stale = read.stale ?? configRead.stale;
  const pricedAs = planned.reason_code === "no_candidates" ? null : pricedAsOf(read.lookup, pricing.effectiveAt ?? null);
  const answered = { priced_as: pricedAs, stale_pricing: stale, lifecycle: pricing.lifecycle, inputs: resolved };
  // A dry run (../gate/request/dry-run.ts) answers the plan itself: no id, no holdout arm, nothing recorded.
  if (!isRecorded(body)) return { ...planned, ...answered, dry_run: true };
  const { decisionId, outcome, record } = assignPlan({
    tenant: context.tenant,
    config,
    body,
    resolved,
    outcome: planned,
    pricedAs: pricedAs?.model ?? null,
    row: read.lookup.status === "priced" ? read.lookup.row : null,
    at: context.now,
  });
  recordPlan(env.DECISIONS, {
    tenant: context.tenant,
    model_name: body.model_name,
    priced_as: pricedAs?.model ?? null,
    price_effective_at: pricedAs?.price_effective_at ?? null,
    stale_age_seconds: stale?.age_seconds ?? null,
    outcome,
    decision_id: decisionId,
    tool_name: record.tool_name,
    session_id: record.session_id,
    inputs: { ...resolved, segments: body.segments.length },
  });
  // As for a gate decision: the ledger learns of the plan after the answer, never failing it.
  waitUntil(handDecisions(env, context.tenant, [record], { retentionDays: config.ledger_retention_days, rawDays: config.ledger_raw_days, timeoutMs: config.ledger_timeout_ms }));
  return { ...outcome, ...answered, decision_id: decisionId };
}

/**
 * POST /v1/plan: validate → load pricing → plan → record → respond.
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/plan -H 'content-type: application/json' -d '{"model_name":"claude-opus-4-6",
 *   "segments":[{"tokens":8000},{"id":"c1","tokens":42000},{"tokens":1500}]}'
 */
export const plan = createApp().openapi(planRoute, async (c) => c.json(await answerPlan(c.req.valid("json"), decideContext(c)), 200));
