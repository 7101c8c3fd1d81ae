/**
 * The learned priors for one decision's (tool, model), from a tenant's
 * published value and the config in force. Worked out once per (value,
 * config, tool, model) and held with the value: a request does no pooling
 * of its own. Values and configs are frozen and replaced whole, so they key
 * the memo.
 */
import type { GateConfig } from "../store/config";
import type { LearnedValue } from "../store/learning";
import { own } from "../store/names";
import { learnPriors, type PooledPriors, type RootPriors } from "./pool";

const memo = new WeakMap<Readonly<LearnedValue>, WeakMap<Readonly<GateConfig>, Map<string, PooledPriors>>>();

/**
 * The config's priors as the learner's root.
 *
 * @example
 * rootOf(DEFAULT_GATE_CONFIG) // { horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 }
 */
export function rootOf(config: Readonly<GateConfig>): RootPriors {
  return { horizon: config.expected_conversation_depth, recall_probability: config.p_recall, cache_hit_rate: config.cache_hit_rate };
}

/**
 * Every level's pooled priors for a decision: tenant, then its tool (when it
 * names one the value knows), then the tool × model. A tool or model the
 * value has never seen has no observations: it passes its parent through.
 *
 * @example
 * learnedFor(value, config, "read_file", "claude-opus-4-6").recall_probability // { value: 0.754…, n: 12, ... }
 */
export function learnedFor(value: Readonly<LearnedValue>, config: Readonly<GateConfig>, tool: string | null, model: string): PooledPriors {
  let byConfig = memo.get(value);
  if (byConfig === undefined) memo.set(value, (byConfig = new WeakMap()));
  let byKey = byConfig.get(config);
  if (byKey === undefined) byConfig.set(config, (byKey = new Map()));
  const toolEntry = tool === null ? undefined : own(value.tools, tool);
  const modelSums = own(toolEntry?.models, model);
  // Only names the value holds become keys, so the memo is bounded by the value.
  const key = `${toolEntry === undefined ? "" : tool}\u0000${modelSums === undefined ? "" : model}`;
  let pooled = byKey.get(key);
  if (pooled === undefined) {
    pooled = learnPriors(rootOf(config), [value.tenant_sums, toolEntry?.sums, modelSums], config.learning_prior_weight);
    byKey.set(key, pooled);
  }
  return pooled;
}
