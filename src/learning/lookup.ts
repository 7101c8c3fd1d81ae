/**
 * The learned priors for one decision's (tool, model), from a tenant's
 * published value and the config in force. Worked out once per (value,
 * config, tool, model) and held with the value: a request does no pooling
 * of its own. Values and configs are frozen and replaced whole, so they key
 * the memo.
 */

import type { SizeBand } from "../gate";
import type { LearnedValue } from "../storage";
import type { GateConfig } from "../storage/schemas";
import { chainPriors, levelsOf } from "./chain";
import type { PooledPriors, RootPriors } from "./pool";

const memo = new WeakMap<Readonly<LearnedValue>, WeakMap<Readonly<GateConfig>, Map<string, PooledPriors>>>();

/**
 * The config's priors as the learner's root.
 *
 * @example
 * rootOf(DEFAULT_GATE_CONFIG) // { horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 }
 */
export function rootOf(config: Readonly<GateConfig>): RootPriors {
  return {
    horizon: config.expected_conversation_depth,
    recall_probability: config.p_recall,
    cache_hit_rate: config.cache_hit_rate,
  };
}

/**
 * Every level's pooled priors for a decision (./chain.ts): the replay level
 * and its size band, the tenant, the tool, the tool × model, the tool's own
 * size band (p). A tool, model
 * or band the value has never seen has no observations: it passes its
 * parent through.
 *
 * @example
 * learnedFor(value, config, "read_file", "claude-opus-4-6", "ge10k").recall_probability // { value: 0.754…, source: "learned", n: 12, ... }
 */
export function learnedFor(
  value: Readonly<LearnedValue>,
  config: Readonly<GateConfig>,
  tool: string | null,
  model: string,
  band: SizeBand | null = null,
): PooledPriors {
  let byConfig = memo.get(value);
  if (byConfig === undefined) memo.set(value, (byConfig = new WeakMap()));
  let byKey = byConfig.get(config);
  if (byKey === undefined) byConfig.set(config, (byKey = new Map()));
  const levels = levelsOf(value, tool, model, band);
  // Only names the value holds become keys, so the memo is bounded by the value.
  const known = levels.tool !== undefined || levels.replay !== undefined;
  const key = `${tool === null ? "\u0001" : known ? tool : ""}\u0000${levels.model === undefined ? "" : model}\u0000${levels.replayBand === undefined && levels.toolBand === undefined ? "" : band}`;
  let pooled = byKey.get(key);
  if (pooled === undefined) {
    pooled = chainPriors(rootOf(config), levels, config.learning_prior_weight);
    byKey.set(key, pooled);
  }
  return pooled;
}
