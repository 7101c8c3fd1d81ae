import { createRoute } from "@hono/zod-openapi";
import { recordClearing } from "../../analytics";
import { GATE_SECURITY } from "../../auth";
import { DEFAULT_PLACEHOLDER_TOKENS, decideClearing } from "../../gate";
import type { DecideContext } from "../kernel";
import { isRecorded, pricedAsOf, signAndRecord } from "../kernel";
import { bodyErrors, CALLER_ERRORS, json, jsonRequest } from "../kernel/openapi";
import { assignClearing } from "./clearing-ledger";
import {
  type ContextManagementBody,
  type ContextManagementRequest,
  ContextManagementRequestSchema,
  ContextManagementSchema,
} from "./context-schema";
import { resolvePlanRequest } from "./resolve";

/** POST /v1/context-management, for the app and its OpenAPI document. */
export const contextManagementRoute = createRoute({
  method: "post",
  path: "/v1/context-management",
  summary: "The Anthropic clear_tool_uses edit that costs least over the horizon, in dollars, beside the clearing plan",
  tags: ["plan"],
  security: GATE_SECURITY,
  request: jsonRequest(ContextManagementRequestSchema),
  responses: {
    200: json(
      ContextManagementSchema,
      "The edit to send (or none), what it clears and saves, and the plan's own optimum",
    ),
    ...bodyErrors("The body is not JSON or a field is wrong; the error names its path (segments.7.tool_name)"),
    ...CALLER_ERRORS,
  },
});

/**
 * POST /v1/context-management's body, end to end: the plan's priors and
 * pricing, the pure pricing of every rule, one data point and one ledger
 * record (none in a dry run), the answer. The API applies the edit; what it
 * cleared (`applied_edits`) is this decision's outcome (docs/api/plan.md).
 *
 * @example
 * const answer = await answerContextManagement(body, context);
 * answer.context_management // { edits: [{ type: "clear_tool_uses_20250919", keep: { type: "tool_uses", value: 0 }, ... }] }
 */
export async function answerContextManagement(
  body: ContextManagementRequest,
  context: DecideContext,
): Promise<ContextManagementBody> {
  const { env } = context;
  const { config, resolved, inputs, pricing, configRead } = await resolvePlanRequest(body, context, (i) =>
    i.segments.some((s) => s.id !== undefined),
  );
  const placeholder_tokens = body.placeholder_tokens ?? DEFAULT_PLACEHOLDER_TOKENS;
  const { read } = pricing;
  const decided = decideClearing({ ...inputs, segments: body.segments, placeholder_tokens }, read.lookup);
  const pricedAs =
    decided.reason_code === "no_tool_results" ? null : pricedAsOf(read.lookup, pricing.effectiveAt ?? null);
  const stale = read.stale ?? configRead.stale;
  const answered = {
    priced_as: pricedAs,
    stale_pricing: stale,
    lifecycle: pricing.lifecycle,
    inputs: { ...resolved, placeholder_tokens },
  };
  // A dry run answers the rule itself, as the plan's does: no id, no holdout arm, nothing recorded.
  if (!isRecorded(body)) return { ...decided, ...answered, dry_run: true };
  const assigned = assignClearing({
    tenant: context.tenant,
    config,
    body,
    resolved,
    outcome: decided,
    placeholder: placeholder_tokens,
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
    (head) =>
      recordClearing(env.DECISIONS, {
        ...head,
        outcome,
        inputs: {
          ...resolved,
          placeholder_tokens,
          segments: body.segments.length,
          tool_results: body.segments.filter((segment) => segment.id !== undefined).length,
        },
      }),
  );
  return { ...outcome, ...answered, decision_id: decisionId };
}
