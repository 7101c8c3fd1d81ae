import { CHARS_PER_TOKEN, isBelowThreshold, type PricingMode } from "../../../gate";
import { type ErrorIssue, summarize } from "../../../http";
import { exploreDraws } from "../../../learning";
import { isExplore } from "../../../ledger";
import { type LearnedValue, type PricingRead, readGateConfig, readLearned, readPricing } from "../../../storage";
import { DEFAULT_GATE_CONFIG } from "../../../storage/rules";
import type { GateConfig } from "../../../storage/schemas";
import type { DecideContext } from "../../kernel";
import { ambiguityIssue, NOT_LOOKED_UP, type ResolvedPricing, withLifecycle } from "../../kernel";
import type { GateBatchItemError, GateRequest, ResolvedInputs } from "../schemas";
import { CACHE_AWARE_FIELDS, providerTtl, resolveInputs } from "./inputs";
import { type AnswerPriors, applyLearned } from "./priors";
import { withFamilyRecall, withSessionHorizon } from "./session";

/**
 * The first half of every gate route: validate → load pricing. Each item's
 * mode, its inputs with every default filled in, and the pricing that
 * prices it, ready for POST /v1/gate's decision (./decide.ts) or for
 * POST /v1/gate/curve's points (../answer/curve.ts).
 */

/** An item ready to decide: its body, mode, inputs with every default filled in, and its pricing. */
export interface ReadyItem {
  body: GateRequest;
  inputs: ResolvedInputs;
  mode: PricingMode;
  pricing: ResolvedPricing;
  /** Where each prior came from (docs/design/learning.md §3.2). */
  priors: AnswerPriors;
  /** What priced a session-aware horizon, for the reason (./session.ts); null: none did. */
  sessionNote: string | null;
}

/** What preparing a request found: the config it read once, and each item ready or refused. */
export interface Prepared {
  config: Readonly<GateConfig>;
  configStale: PricingRead["stale"];
  /** The tenant's learned value (its breakers too); null: nothing learned, or it could not be read. */
  learned: Readonly<LearnedValue> | null;
  items: Array<ReadyItem | GateBatchItemError>;
}

/**
 * One item of work: a body that passed its schema (and where it sits in the
 * request, for error paths), or the issues that already stop it.
 */
export type GateItem = { body: GateRequest; path: (string | number)[] } | { issues: ErrorIssue[] };

/**
 * validate → load pricing, for every item: the config is read once and each
 * distinct model's pricing once, shared by every item that names it. Below
 * the pre-filter the gate never looks at pricing, so neither does this,
 * unless `priceBelowThreshold` asks for the row anyway (a curve reaches
 * above the threshold even when its request does not).
 *
 * @example
 * const { items } = await prepareItems([{ body, path: [] }], context);
 * items[0] // { body, inputs, mode: "seed", pricing: { read, lifecycle } }
 */
export async function prepareItems(
  items: readonly GateItem[],
  context: DecideContext,
  priceBelowThreshold = false,
): Promise<Prepared> {
  const { env, waitUntil } = context;
  const configRead = await readGateConfig(env.PRICING, waitUntil);
  const config = configRead.ok ? configRead.config : DEFAULT_GATE_CONFIG;
  // Read beside the pricing, never after it: a cold or slow read costs no more than the row's.
  const learnedRead =
    configRead.ok && config.learning_enabled
      ? readLearned(env.PRICING, context.tenant, config, waitUntil)
      : Promise.resolve(null);

  const reads = new Map<string, Promise<PricingRead>>();
  const readOnce = (model: string): Promise<PricingRead> => {
    let read = reads.get(model);
    if (read === undefined) {
      read = readPricing(env.PRICING, model, config, waitUntil);
      reads.set(model, read);
    }
    return read;
  };
  const resolved = new Map<string, Promise<ResolvedPricing>>();
  const pricingOf = (inputs: ResolvedInputs, needsRow = false): Promise<ResolvedPricing> => {
    // Priors we cannot read are priors we cannot trust: do not fire.
    if (!configRead.ok)
      return Promise.resolve({
        read: { lookup: { status: "unavailable", detail: configRead.detail }, stale: null },
        lifecycle: null,
      });
    if (!needsRow && !priceBelowThreshold && isBelowThreshold(inputs)) return Promise.resolve(NOT_LOOKED_UP);
    let pricing = resolved.get(inputs.model_name);
    if (pricing === undefined) {
      pricing = withLifecycle(inputs.model_name, readOnce, context.today, context.now);
      resolved.set(inputs.model_name, pricing);
    }
    return pricing;
  };

  const ready = await Promise.all(
    items.map(async (item): Promise<ReadyItem | GateBatchItemError> => {
      if ("issues" in item) return itemError(item.issues);
      const mode = modeOf(item.body, config, configRead.ok);
      const issues = modeIssues(item.body, mode, configRead.ok, item.path);
      if (issues.length > 0) return itemError(issues);
      const resolved = resolveInputs(item.body, config, mode);
      // Characters become tokens at the row's ratio in cache-aware mode, so the row is read before the pre-filter.
      const fromChars =
        mode === "cache_aware" && item.body.output_tokens === undefined && item.body.output_chars !== undefined;
      const [pricing, learned] = await Promise.all([pricingOf(resolved, fromChars), learnedRead]);
      if (fromChars) tokensFromChars(resolved, item.body.output_chars ?? 0, pricing);
      // A name two rows could price is refused, naming both: never a guess (docs/design/economics.md §10).
      const ambiguous = ambiguityIssue(
        pricing.read.lookup,
        resolved.model_name,
        [...item.path, "model_name"].join("."),
      );
      if (ambiguous !== null) return itemError([ambiguous]);
      const ttlIssues = providerTtl(item.body, resolved, mode, pricing, item.path);
      if (ttlIssues.length > 0) return itemError(ttlIssues);
      // Learned per the canonical model that prices the decision (the requested name when none does).
      const model = pricing.read.lookup.status === "priced" ? pricing.read.lookup.canonical : resolved.model_name;
      // Exploration is drawn per (session, tool), so the breaker can set those sessions aside (ledger/model/ids.ts).
      const tool = item.body.tool_name;
      const explore =
        learned !== null &&
        tool !== undefined &&
        item.body.session_id !== undefined &&
        isExplore(context.tenant, item.body.session_id, tool, config.learning_explore_fraction)
          ? exploreDraws(context.tenant, item.body.session_id, tool)
          : null;
      const applied = applyLearned(item.body, resolved, mode, learned, config, model, explore);
      // What the request tells of its session outranks a per-tool horizon (docs/design/economics.md §13).
      const session = withSessionHorizon(item.body, applied.inputs, applied.priors, mode);
      // A new tenant's p from the agent family's calibration (docs/design/learning.md §8.1).
      const { inputs, priors, note } = withFamilyRecall(item.body, session.inputs, session.priors, mode, config);
      const notes = (session.note ?? "") + (note ?? "");
      return { body: item.body, inputs, mode, pricing, priors, sessionNote: notes === "" ? null : notes };
    }),
  );
  return { config, configStale: configRead.stale, learned: await learnedRead, items: ready };
}

/**
 * A cache-aware request's `output_chars` in tokens at the row's `chars_per_token` (else 4), and the
 * ratio echoed in `inputs` (docs/design/economics.md §12). Seed mode never comes here: chars / 4.
 *
 * @example
 * tokensFromChars(inputs, 40_000, { read: { lookup: { status: "priced", row: { chars_per_token: 3.2 } } } }) // inputs.output_tokens = 12500
 */
export function tokensFromChars(inputs: ResolvedInputs, chars: number, pricing: ResolvedPricing): void {
  const { lookup } = pricing.read;
  const ratio = (lookup.status === "priced" ? lookup.row.chars_per_token : undefined) ?? CHARS_PER_TOKEN;
  inputs.output_tokens = chars / ratio;
  inputs.chars_per_token = ratio;
}

/**
 * The item error for these issues, worded as the app's 400s are.
 *
 * @example
 * itemError([{ path: "items.3.horizon", message: "must be an integer ≥ 0" }]).error.message
 * // "items.3.horizon must be an integer ≥ 0"
 */
export function itemError(issues: ErrorIssue[]): GateBatchItemError {
  return { error: { code: "invalid_request", message: summarize(issues), issues } };
}

function modeOf(body: GateRequest, config: Readonly<GateConfig>, configOk: boolean): PricingMode {
  if (body.pricing_mode !== undefined) return body.pricing_mode;
  if (configOk) return config.pricing_mode;
  // Without the config's default, cache-aware fields are the only hint of the mode meant.
  return CACHE_AWARE_FIELDS.some((field) => body[field] !== undefined)
    ? "cache_aware"
    : DEFAULT_GATE_CONFIG.pricing_mode;
}

/**
 * The seed ignores the cache-aware fields (q, P, placement, TTL, the q
 * range); accepting them there would let a caller believe its cache was
 * priced when it was not.
 */
function modeIssues(body: GateRequest, mode: PricingMode, configOk: boolean, path: (string | number)[]): ErrorIssue[] {
  if (mode !== "seed" || !configOk) return [];
  const why =
    body.pricing_mode === undefined ? 'pricing_mode is "seed" (the default in config:gate)' : 'pricing_mode is "seed"';
  return CACHE_AWARE_FIELDS.filter((field) => body[field] !== undefined).map((field) => ({
    path: [...path, field].join("."),
    message: `only applies when pricing_mode is "cache_aware"; ${why}`,
  }));
}
