/**
 * Plain data shared by the gate's core, its routes and its telemetry.
 */

/** The reference's `OffloadGateInputs`, under the reference's field names. */
export interface OffloadGateInputs {
  output_tokens: number;
  horizon: number;
  recall_probability: number;
  model_name: string;
  large_offload_threshold_tokens?: number;
  stub_tokens?: number;
  recall_input_tokens?: number;
  recall_output_tokens?: number;
}

/** The reference's `OffloadGateDecision`. */
export interface OffloadGateDecision {
  fire: boolean;
  net_saving_usd: number;
  reprefill_saving_usd: number;
  stub_carry_cost_usd: number;
  expected_recall_hop_cost_usd: number;
  reason: string;
}

/** Why the gate decided as it did, in a form machines can group by. */
export type ReasonCode =
  | "below_threshold"
  | "unpriced"
  | "pricing_unavailable"
  | "net_positive"
  | "net_not_positive";

/** The prices the core reads from a pricing row, in USD per million tokens. */
export interface PriceRates {
  input?: number;
  output?: number;
}

/** A decision with its machine-readable reason. */
export interface TaggedDecision extends OffloadGateDecision {
  reason_code: ReasonCode;
}

/**
 * What the pricing lookup found for a model: a tagged result, so that every
 * caller handles each case (see `decideGate`).
 */
export type PricingLookup<Row extends PriceRates = PriceRates> =
  | { status: "priced"; row: Row; canonical: string }
  | { status: "unpriced" }
  | { status: "unavailable"; detail: string };
