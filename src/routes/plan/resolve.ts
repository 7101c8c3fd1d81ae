import { cacheTtlRefusal, DEFAULT_CACHE_AWARE_FLOOR_TOKENS, defaultCacheTtl, type PlanInputs } from "../../gate";
import { invalidRequest } from "../../http";
import { readGateConfig, readPricing } from "../../storage";
import { DEFAULT_GATE_CONFIG } from "../../storage/rules";
import { ambiguityIssue, type DecideContext, NOT_LOOKED_UP, type ResolvedPricing, withLifecycle } from "../kernel";
import type { PlanRequest, ResolvedPlanInputs } from "./schema";

/**
 * The priors and pricing of a plan-shaped body, one way for both routes that
 * take one: a config that cannot be read means no pricing (so nothing is
 * stubbed or cleared), and pricing is read only when the answer needs it.
 */

/**
 * A plan-shaped body's priors filled from the gate config and its model's
 * pricing read (as the gate reads it: aliases, a retired model priced as its
 * replacement), unless `needsPricing` says the answer needs none. Shared by
 * POST /v1/plan and POST /v1/context-management.
 *
 * @example
 * const { resolved, inputs, pricing } = await resolvePlanRequest(body, context, hasEligible);
 */
export async function resolvePlanRequest(
  body: PlanRequest,
  context: DecideContext,
  needsPricing: (inputs: PlanInputs) => boolean,
) {
  const { env, waitUntil } = context;
  const configRead = await readGateConfig(env.PRICING, waitUntil);
  const config = configRead.ok ? configRead.config : DEFAULT_GATE_CONFIG;
  const resolved: ResolvedPlanInputs = {
    model_name: body.model_name,
    horizon: body.horizon ?? config.expected_conversation_depth,
    recall_probability: body.recall_probability ?? config.p_recall,
    cache_hit_rate: body.cache_hit_rate ?? config.cache_hit_rate,
    cache_ttl: body.cache_ttl ?? "5m",
    recall_placement: body.recall_placement ?? "append",
    // A plan is priced cache-aware: no floor unless one is set.
    large_offload_threshold_tokens:
      body.large_offload_threshold_tokens ?? config.large_offload_threshold_tokens ?? DEFAULT_CACHE_AWARE_FLOOR_TOKENS,
    stub_tokens: body.stub_tokens ?? config.stub_tokens,
    recall_input_tokens: body.recall_input_tokens ?? config.recall_input_tokens,
    recall_output_tokens: body.recall_output_tokens ?? config.recall_output_tokens,
    history_tokens: body.segments.reduce((sum, segment) => sum + segment.tokens, 0),
  };
  const inputs: PlanInputs = { ...resolved, segments: body.segments };
  let pricing: ResolvedPricing;
  // Priors we cannot read are priors we cannot trust: do not stub.
  if (!configRead.ok)
    pricing = { read: { lookup: { status: "unavailable", detail: configRead.detail }, stale: null }, lifecycle: null };
  // With nothing to price the answer needs no pricing, so none is read.
  else if (!needsPricing(inputs)) pricing = NOT_LOOKED_UP;
  else
    pricing = await withLifecycle(
      body.model_name,
      (model) => readPricing(env.PRICING, model, config, waitUntil),
      context.today,
      context.now,
    );
  // The provider's cache (docs/design/economics.md §5.1): its default TTL, or a 400 for one it does not offer.
  const { lookup } = pricing.read;
  const ambiguous = ambiguityIssue(lookup, body.model_name, "model_name");
  if (ambiguous !== null) throw invalidRequest([ambiguous]);
  if (lookup.status === "priced") {
    if (body.cache_ttl === undefined) resolved.cache_ttl = inputs.cache_ttl = defaultCacheTtl(lookup.row);
    const refusal = cacheTtlRefusal(lookup.row, resolved.cache_ttl, body.model_name);
    if (refusal !== null) throw invalidRequest([{ path: "cache_ttl", message: refusal }]);
  }
  return { config, configRead, resolved, inputs, pricing };
}
