import { recordDecision } from "../../analytics";
import { decideGate, type PricingLookup } from "../../gate";
import { DEFAULT_GATE_CONFIG, type GateConfig } from "../../pricing/config";
import type { PricingRow } from "../../pricing/schema";
import { readGateConfig, readPricing, type PricingRead } from "../../pricing/store";
import type { GateDecisionBody, GateRequest, ResolvedInputs } from "./schema";

/** What a decision needs from the request's surroundings. */
export interface DecideContext {
  env: Env;
  tenant: string;
  waitUntil: (promise: Promise<unknown>) => void;
}

// Below the threshold the gate never looks at pricing, so neither do we.
const NOT_LOOKED_UP: PricingRead = { lookup: { status: "unpriced" }, stale: null };

/**
 * Fills every omitted field from the config's priors and defaults.
 *
 * @example
 * resolveInputs({ model_name: "gpt-5", output_chars: 80_000 }, DEFAULT_GATE_CONFIG)
 * // { model_name: "gpt-5", output_tokens: 20000, output_chars: 80000, horizon: 4, recall_probability: 0.25, ... }
 */
export function resolveInputs(body: GateRequest, config: Readonly<GateConfig>): ResolvedInputs {
  const resolved: ResolvedInputs = {
    model_name: body.model_name,
    output_tokens: body.output_tokens ?? (body.output_chars ?? 0) / 4,
    horizon: body.horizon ?? config.expected_conversation_depth,
    recall_probability: body.recall_probability ?? config.p_recall,
    large_offload_threshold_tokens: body.large_offload_threshold_tokens ?? config.large_offload_threshold_tokens,
    stub_tokens: body.stub_tokens ?? config.stub_tokens,
    recall_input_tokens: body.recall_input_tokens ?? config.recall_input_tokens,
    recall_output_tokens: body.recall_output_tokens ?? config.recall_output_tokens,
  };
  if (body.output_chars !== undefined) resolved.output_chars = body.output_chars;
  return resolved;
}

/**
 * One gate request, end to end: load config and pricing (from the isolate
 * when it holds them), decide, record, and shape the answer.
 */
export async function decideRequest(body: GateRequest, context: DecideContext): Promise<GateDecisionBody> {
  const { env, waitUntil } = context;
  const configRead = await readGateConfig(env.PRICING, waitUntil);
  const config = configRead.ok ? configRead.config : DEFAULT_GATE_CONFIG;
  const inputs = resolveInputs(body, config);

  let pricing: PricingRead;
  if (!configRead.ok) {
    // Priors we cannot read are priors we cannot trust: do not fire.
    pricing = { lookup: { status: "unavailable", detail: configRead.detail }, stale: null };
  } else if (inputs.output_tokens < inputs.large_offload_threshold_tokens) {
    pricing = NOT_LOOKED_UP;
  } else {
    pricing = await readPricing(env.PRICING, inputs.model_name, config, waitUntil);
  }

  const decision = decideGate(inputs, pricing.lookup);
  const stale = pricing.stale ?? configRead.stale;
  const pricedAs = decision.reason_code === "below_threshold" ? null : pricedAsOf(pricing.lookup);
  recordDecision(env.DECISIONS, {
    tenant: context.tenant,
    model_name: inputs.model_name,
    priced_as: pricedAs?.model ?? null,
    pricing_mode: "seed",
    stale_age_seconds: stale?.age_seconds ?? null,
    decision,
    inputs,
  });
  return { ...decision, priced_as: pricedAs, stale_pricing: stale, inputs };
}

function pricedAsOf(lookup: PricingLookup<PricingRow>): GateDecisionBody["priced_as"] {
  if (lookup.status !== "priced") return null;
  const { aliases: _aliases, ...prices } = lookup.row;
  return { model: lookup.canonical, ...prices };
}
