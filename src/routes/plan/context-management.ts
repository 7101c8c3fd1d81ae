import { createRoute } from "@hono/zod-openapi";
import { GATE_SECURITY } from "../../auth/gate";
import { decideClearing, DEFAULT_PLACEHOLDER_TOKENS } from "../../gate";
import { bodyErrors, json, jsonRequest } from "../../http/schema";
import { CALLER_ERRORS } from "../gate/answer/caller";
import { pricedAsOf } from "../gate/request/decide";
import type { DecideContext } from "../gate/request/prepare";
import {
  ContextManagementRequestSchema,
  ContextManagementSchema,
  type ContextManagementBody,
  type ContextManagementRequest,
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
 * pricing, the pure pricing of every rule, the answer. Nothing is recorded:
 * the server applies the edit, so the gate has no decision of its own to
 * keep (docs/api.md says how to report what it cleared).
 *
 * @example
 * const answer = await answerContextManagement(body, context);
 * answer.context_management // { edits: [{ type: "clear_tool_uses_20250919", keep: { type: "tool_uses", value: 0 }, ... }] }
 */
export async function answerContextManagement(
  body: ContextManagementRequest,
  context: DecideContext,
): Promise<ContextManagementBody> {
  const { resolved, inputs, pricing, configRead } = await resolvePlanRequest(body, context, (i) =>
    i.segments.some((s) => s.id !== undefined),
  );
  const placeholder_tokens = body.placeholder_tokens ?? DEFAULT_PLACEHOLDER_TOKENS;
  const { read } = pricing;
  const outcome = decideClearing({ ...inputs, segments: body.segments, placeholder_tokens }, read.lookup);
  const pricedAs =
    outcome.reason_code === "no_tool_results" ? null : pricedAsOf(read.lookup, pricing.effectiveAt ?? null);
  return {
    ...outcome,
    priced_as: pricedAs,
    stale_pricing: read.stale ?? configRead.stale,
    lifecycle: pricing.lifecycle,
    inputs: { ...resolved, placeholder_tokens },
  };
}
