/**
 * What GET /v1/learning and GET /v1/admin/learning show (and the console's
 * learning panel): per tool, tool × model and tool × size band, the observations, the learned
 * values with their credible ranges, the config's values, and the breaker.
 * Pure: a published value and the config in, the view out.
 */

import { SIZE_BANDS, type SizeBand } from "../../gate";
import type { BreakerState, LearnedValue, ToolTrust } from "../../storage";
import { own } from "../../storage/rules";
import type { GateConfig } from "../../storage/schemas";
import {
  chainPriors,
  horizonRange,
  LEARNED_FIELDS,
  type LearnedField,
  type LevelSums,
  levelsOf,
  type PooledPriors,
  type PooledSource,
  rootOf,
  unitRange,
} from "..";

/** Ranges are shown at this level when learning_credible is off. */
export const VIEW_CREDIBLE = 0.9;

/** One learned field as the view shows it. */
export interface FieldView {
  value: number;
  /** config, replay (imported history) or learned (the tenant's outcomes). */
  source: PooledSource;
  /** Observations at the most specific level learned from (0: the config's value, passed through). */
  n: number;
  range: [number, number] | null;
}

/** One level: its own observations per field, and the values pooled down to it. */
export interface LevelView {
  n: Record<LearnedField, number>;
  priors: Record<LearnedField, FieldView>;
}

export interface ToolView extends LevelView {
  tool_name: string;
  /** The imported replay level's observations per field, null when none was imported for the tool. */
  replay: Record<LearnedField, number> | null;
  breaker: BreakerState | null;
  /** The reporting flags raised at the last refresh (./trust.ts); null: none. */
  trust: ToolTrust | null;
  /** Each model, with the p the gate decides on for it in each size band (the whole chain). */
  models: Array<LevelView & { model: string; bands: Array<{ band: SizeBand; recall_probability: FieldView }> }>;
  /** p per size band: the tenant's own fired outcomes in the band (n), and the value a decision of that size pools. */
  bands: Array<{ band: SizeBand; n: number; recall_probability: FieldView }>;
}

export interface LearningView {
  tenant: string;
  enabled: boolean;
  computed_at: string | null;
  window: { from: string; to: string } | null;
  prior_weight: number;
  credible: number | null;
  range_level: number;
  config: Record<LearnedField, number>;
  tenant_level: LevelView;
  tools: ToolView[];
}

/**
 * The view of a tenant's learned value (null: nothing published yet, so the
 * config's values everywhere).
 *
 * @example
 * learningView("acme", value, config).tools[0].priors.recall_probability // { value: 0.659…, n: 40, range: [0.52…, 0.78…] }
 */
export function learningView(
  tenant: string,
  value: Readonly<LearnedValue> | null,
  config: Readonly<GateConfig>,
): LearningView {
  const w = config.learning_prior_weight;
  const level = config.learning_credible ?? VIEW_CREDIBLE;
  const root = rootOf(config);
  // The same chains the gate pools (./chain.ts), so the view shows what a decision would use.
  const levelOf = (tool: string | null, model: string | null, own: LevelSums | undefined): LevelView => ({
    n: ownN(own),
    priors: fieldsOf(chainPriors(root, levelsOf(value, tool, model, null), w), level),
  });
  const tenantSums = value?.tenant_sums;
  return {
    tenant,
    enabled: config.learning_enabled,
    computed_at: value === null ? null : new Date(value.computed_at).toISOString(),
    window:
      value === null
        ? null
        : { from: new Date(value.window.from).toISOString(), to: new Date(value.window.to).toISOString() },
    prior_weight: w,
    credible: config.learning_credible,
    range_level: level,
    config: root,
    tenant_level: levelOf(null, null, tenantSums),
    // Every tool with sums, imported priors or a breaker (a tool judged on bills alone may have no outcomes).
    tools: [
      ...new Set([
        ...Object.keys(value?.tools ?? {}),
        ...Object.keys(value?.replay ?? {}),
        ...Object.keys(value?.breakers ?? {}),
        ...Object.keys(value?.trust ?? {}),
      ]),
    ]
      .sort()
      .map((tool) => [tool, own(value?.tools, tool) ?? { sums: undefined, models: {}, bands: undefined }] as const)
      .map(([tool, entry]) => ({
        tool_name: tool,
        ...levelOf(tool, null, entry.sums),
        replay: own(value?.replay, tool) === undefined ? null : ownN(own(value?.replay, tool)?.sums),
        breaker: own(value?.breakers, tool) ?? null,
        trust: own(value?.trust, tool) ?? null,
        models: Object.entries(entry.models).map(([model, sums]) => ({
          model,
          ...levelOf(tool, model, sums),
          bands: SIZE_BANDS.map((band) => ({
            band,
            recall_probability: fieldsOf(chainPriors(root, levelsOf(value, tool, model, band), w), level)
              .recall_probability,
          })),
        })),
        // Every band, so a band with no observations shows the value it passes through.
        bands: SIZE_BANDS.map((band) => ({
          band,
          n: entry.bands?.[band]?.p_n ?? 0,
          recall_probability: fieldsOf(chainPriors(root, levelsOf(value, tool, null, band), w), level)
            .recall_probability,
        })),
      })),
  };
}

function ownN(sums: LevelSums | undefined): Record<LearnedField, number> {
  if (sums === undefined) return { horizon: 0, recall_probability: 0, cache_hit_rate: 0 };
  return { horizon: sums.h_n, recall_probability: sums.p_n, cache_hit_rate: sums.q_turns > 0 ? sums.q_n : 0 };
}

function fieldsOf(pooled: PooledPriors, level: number): Record<LearnedField, FieldView> {
  const out = {} as Record<LearnedField, FieldView>;
  for (const field of LEARNED_FIELDS) {
    const f = pooled[field];
    const range = f.n === 0 ? null : field === "horizon" ? horizonRange(f, level) : unitRange(f, level);
    out[field] = { value: f.value, source: f.source, n: f.n, range };
  }
  return out;
}
