import { type DecisionRecord, recordDecision } from "../../../analytics";
import { type CacheAwareInputs, decideOutcome } from "../../../gate";
import { ApiError } from "../../../http";
import { handDecisions, type LedgerDecision, signDecisionId, signsIds } from "../../../ledger";
import type { LearnedValue, PricingRead } from "../../../storage";
import { own } from "../../../storage/rules";
import type { GateConfig } from "../../../storage/schemas";
import { type DecideContext, isRecorded, pricedAsOf } from "../../kernel";
import type { GateBatchItemError, GateDecisionBody, GateRequest, ResolvedInputs } from "../schemas";
import { assignDecision } from "./ledger";
import { type GateItem, prepareItems, type ReadyItem } from "./prepare";
import { withSuggestions } from "./suggestions";

/** What one item gets back: its decision, or its error. */
export type GateAnswer = GateDecisionBody | GateBatchItemError;

/**
 * The one pipeline behind POST /v1/gate and POST /v1/gate/batch:
 * validate → load pricing (./prepare.ts) → decide → record → respond. Each
 * decided item writes one data point and one ledger record. Answers come
 * back in item order.
 *
 * @example
 * await decideItems([{ body, path: ["items", 0] }, { issues: [{ path: "items.1", message: "is required" }] }], context)
 * // [{ fire: true, ... }, { error: { code: "invalid_request", ... } }]
 */
export async function decideItems(items: readonly GateItem[], context: DecideContext): Promise<GateAnswer[]> {
  const { config, configStale, learned, items: ready } = await prepareItems(items, context);
  const records: LedgerDecision[] = [];
  // Only a signing gate holds its data points back until the ids are signed; without a key each
  // is written as it is decided, and nothing is awaited.
  const shared: Shared = { config, stale: configStale, records, recorded: signsIds(context.env) ? [] : null, learned };
  const answers = ready.map((item) => ("error" in item ? item : decideOne(item, shared, context)));
  if (shared.recorded !== null) await signIds(shared.recorded, context);
  // The ledger learns of the decisions after the answer: never waited on, never failing it.
  if (records.length > 0)
    context.waitUntil(
      handDecisions(context.env, context.tenant, records, {
        retentionDays: config.ledger_retention_days,
        rawDays: config.ledger_raw_days,
        timeoutMs: config.ledger_timeout_ms,
      }),
    );
  return withSuggestions(ready, answers, config, context);
}

/**
 * POST /v1/gate's body, end to end; an item error becomes the 400.
 *
 * @example
 * const decision = await decideRequest({ model_name: "claude-opus-4-6", output_tokens: 20_000 }, context);
 */
export async function decideRequest(body: GateRequest, context: DecideContext): Promise<GateDecisionBody> {
  return orThrow(await decideItems([{ body, path: [] }], context));
}

/**
 * The one answer of a one-item request; its item error becomes the 400.
 *
 * @example
 * const ready = orThrow((await prepareItems([{ body, path: ["request"] }], context, true)).items);
 */
export function orThrow<T extends object>(answers: ReadonlyArray<T | GateBatchItemError>): T {
  const [answer] = answers;
  if (answer === undefined) throw new Error("a one-item request got no answer");
  if (isItemError(answer)) throw new ApiError("invalid_request", answer.error.message, answer.error.issues);
  return answer;
}

const isItemError = (answer: object): answer is GateBatchItemError => "error" in answer;

/**
 * The core's inputs for resolved ones: the cache-aware fields, which the
 * seed mode neither takes nor reads, at zero.
 *
 * @example
 * coreInputs(resolveInputs({ model_name: "gpt-5", output_tokens: 20_000 }, DEFAULT_GATE_CONFIG)).cache_hit_rate // 0
 */
export function coreInputs(inputs: ResolvedInputs): CacheAwareInputs {
  return { ...inputs, cache_hit_rate: inputs.cache_hit_rate ?? 0, context_tokens: inputs.context_tokens ?? 0 };
}

/** The request-wide state one decision reads and adds its ledger record to. */
interface Shared {
  config: Readonly<GateConfig>;
  stale: PricingRead["stale"];
  records: LedgerDecision[];
  /** The decisions whose ids are signed before their data points are written; null when the gate signs nothing. */
  recorded: Recorded[] | null;
  learned: Readonly<LearnedValue> | null;
}

/** One recorded decision's three copies of its id: the answer's, the ledger record's, the data point's. */
interface Recorded {
  answer: GateDecisionBody;
  record: LedgerDecision;
  point: DecisionRecord;
}

/**
 * Signs every recorded decision's id (ledger/model/id-signing.ts: one HMAC
 * each, all at once, with the isolate's cached key) and only then writes the
 * data points, so the answer, the ledger and Analytics Engine carry the same
 * id. Called only when DECISION_ID_KEY is set.
 */
async function signIds(recorded: readonly Recorded[], context: DecideContext): Promise<void> {
  const { env } = context;
  if (recorded.length > 0) {
    // A key that cannot be imported leaves the ids unsigned (still routable, checked by their shard), never fails the answer.
    const ids = await Promise.all(
      recorded.map((r) => signDecisionId(env, context.tenant, r.record.decision_id, context.now)),
    ).catch((error: unknown) => {
      console.error("offload-gate: decision ids left unsigned:", error instanceof Error ? error.message : error);
      return recorded.map((r) => r.record.decision_id);
    });
    recorded.forEach((r, i) => {
      const id = ids[i] as string;
      r.answer.decision_id = id;
      r.record.decision_id = id;
      r.point.decision_id = id;
    });
  }
  for (const r of recorded) recordDecision(env.DECISIONS, r.point);
}

function decideOne(item: ReadyItem, shared: Shared, context: DecideContext): GateDecisionBody {
  const { body, inputs, mode, pricing: resolvedPricing } = item;
  const pricing = resolvedPricing.read;
  const decided = decideOutcome(mode, coreInputs(inputs), pricing.lookup);
  // A priced decision says what priced a session-aware horizon (./session.ts).
  const outcome =
    item.sessionNote !== null && decided.reason_code !== "below_threshold" && pricing.lookup.status === "priced"
      ? { ...decided, reason: decided.reason + item.sessionNote }
      : decided;
  const stale = pricing.stale ?? shared.stale;
  const pricedAs =
    outcome.reason_code === "below_threshold" ? null : pricedAsOf(pricing.lookup, resolvedPricing.effectiveAt ?? null);
  const { lifecycle } = resolvedPricing;
  const { priors } = item;
  // A dry run answers the gate's own verdict: no id, no holdout arm, nothing recorded.
  if (!isRecorded(body))
    return { ...outcome, priced_as: pricedAs, stale_pricing: stale, lifecycle, inputs, priors, dry_run: true };
  const priced = outcome.reason_code === "net_positive" || outcome.reason_code === "net_not_positive";
  const {
    decisionId,
    outcome: decision,
    record,
  } = assignDecision({
    tenant: context.tenant,
    config: shared.config,
    body,
    inputs,
    mode,
    outcome,
    pricedAs: pricedAs?.model ?? null,
    row: priced && pricing.lookup.status === "priced" ? pricing.lookup.row : null,
    at: context.now,
    breakerOpen: body.tool_name !== undefined && own(shared.learned?.breakers, body.tool_name)?.state === "open",
    cacheHitRatePrior: priors.cache_hit_rate.value,
  });
  shared.records.push(record);
  const point: DecisionRecord = {
    tenant: context.tenant,
    model_name: inputs.model_name,
    priced_as: pricedAs?.model ?? null,
    price_effective_at: pricedAs?.price_effective_at ?? null,
    pricing_mode: mode,
    stale_age_seconds: stale?.age_seconds ?? null,
    lifecycle: resolvedPricing.lifecycle?.status ?? null,
    decision,
    inputs,
    decision_id: decisionId,
    tool_name: record.tool_name,
    session_id: record.session_id,
    prior_sources: priors,
  };
  const answer = {
    ...decision,
    priced_as: pricedAs,
    stale_pricing: stale,
    lifecycle,
    inputs,
    priors,
    decision_id: decisionId,
  };
  if (shared.recorded === null) recordDecision(context.env.DECISIONS, point);
  else shared.recorded.push({ answer, record, point });
  return answer;
}
