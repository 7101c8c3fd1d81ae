import { breakerOpen, type GateOutcome, type HeldOutcome, holdOut, type PricingMode } from "../../../gate";
import { assign, isProbe, type LedgerDecision } from "../../../ledger";
import { PRICE_FIELDS } from "../../../storage/rules";
import type { GateConfig, PricingRow } from "../../../storage/schemas";
import type { GateRequest, ResolvedInputs } from "../schemas";

/** What one decided item needs to get its id, its arm and its ledger record. */
export interface LedgerInput {
  tenant: string;
  config: Readonly<GateConfig>;
  body: GateRequest;
  inputs: ResolvedInputs;
  mode: PricingMode;
  outcome: GateOutcome;
  pricedAs: string | null;
  row: PricingRow | null;
  at: number;
  /** Whether the tool's breaker is open (docs/design/learning.md §4). */
  breakerOpen: boolean;
  /** The q the ledger prices a seed decision's realized net at: the learned prior, else the config's. */
  cacheHitRatePrior: number;
}

/**
 * Gives a decided item its id (from crypto, in the session's shard) and its
 * arm: in the holdout (a hash of the tenant and the session, or of the id
 * when there is no session, below `holdout_fraction`) the answer becomes
 * `holdout`. Returns the answer's outcome and the record the ledger keeps,
 * with the prices that priced it.
 *
 * @example
 * const { outcome, record } = assignDecision({ tenant, config, body, inputs, mode, outcome, pricedAs, row, at: Date.now() });
 */
export function assignDecision(input: LedgerInput): {
  decisionId: string;
  outcome: HeldOutcome;
  record: LedgerDecision;
} {
  const { body, inputs, config, outcome } = input;
  const sessionId = body.session_id ?? null;
  const { decisionId, holdout } = assign(input.tenant, sessionId, body.tool_name ?? null, config);
  const stopped =
    !holdout &&
    input.breakerOpen &&
    !isProbe(input.tenant, sessionId ?? decisionId, body.tool_name ?? "", config.breaker_probe_fraction);
  const answered = holdout ? holdOut(outcome) : stopped ? breakerOpen(outcome) : outcome;
  const record: LedgerDecision = {
    decision_id: decisionId,
    at: input.at,
    session_id: sessionId,
    tool_name: body.tool_name ?? null,
    model_name: inputs.model_name,
    priced_as: input.pricedAs,
    pricing_mode: input.mode,
    reason_code: answered.reason_code,
    fire: answered.fire,
    would_fire: outcome.fire,
    holdout,
    predicted_net_usd: outcome.net_saving_usd,
    inputs: {
      output_tokens: inputs.output_tokens,
      horizon: inputs.horizon,
      recall_probability: inputs.recall_probability,
      // The seed does not use q; the realized net is priced at the prior it would have had.
      cache_hit_rate: inputs.cache_hit_rate ?? input.cacheHitRatePrior,
      // What the request carried, not the 0 it defaulted to: an outcome may supply it.
      context_tokens: body.context_tokens ?? null,
      stub_tokens: inputs.stub_tokens,
      recall_input_tokens: inputs.recall_input_tokens,
      recall_output_tokens: inputs.recall_output_tokens,
      ...(inputs.offload_at === undefined
        ? {}
        : { offload_at: inputs.offload_at, suffix_tokens: inputs.suffix_tokens ?? 0 }),
      ...(inputs.cache_ttl === undefined ? {} : { cache_ttl: inputs.cache_ttl }),
      // Only "in_place" is kept: appended is the default, so an appended record is as it always was.
      ...(inputs.recall_placement === "in_place" ? { recall_placement: "in_place" as const } : {}),
    },
    row: input.row === null ? null : pricesOf(input.row),
  };
  return { decisionId, outcome: answered, record };
}

// Only the prices, every one of them (the 1-hour write and every tier's
// included: a realized net is priced with the row that decided it); the
// ledger keeps one copy per distinct row, so provenance would only lengthen each.
const pricesCache = new WeakMap<PricingRow, LedgerDecision["row"]>();

/**
 * The priced part of a pricing row, as the ledger keeps it with a decision.
 *
 * @example
 * pricesOf({ input: 5, output: 25, cache_write_1h: 10, provider: "anthropic" }) // { input: 5, output: 25, cache_write_1h: 10 }
 */
export function pricesOf(row: PricingRow): LedgerDecision["row"] {
  let prices = pricesCache.get(row);
  if (prices === undefined) {
    const kept: NonNullable<LedgerDecision["row"]> = {};
    for (const field of PRICE_FIELDS) if (row[field] !== undefined) kept[field] = row[field];
    if (row.long_context !== undefined) kept.long_context = { ...row.long_context };
    prices = kept;
    pricesCache.set(row, prices);
  }
  return prices;
}
