/**
 * The gate config's limits and defaults, and its check across fields, free
 * of zod: the gate's startup path reads them (./checked.ts checks a stored
 * config without building ./config.ts's schema, which stays the one source of
 * truth and re-exports all of this).
 *
 * @module
 */

import type { PricingMode } from "../../gate";
import {
  DEFAULT_CACHE_HIT_RATE,
  DEFAULT_EXPECTED_CONVERSATION_DEPTH,
  DEFAULT_P_RECALL,
  DEFAULT_RECALL_INPUT_TOKENS,
  DEFAULT_RECALL_OUTPUT_TOKENS,
  DEFAULT_STUB_TOKENS,
} from "../../gate";

/** Largest horizon the API accepts: far beyond any conversation, and it keeps every term finite. */
export const MAX_HORIZON = 1_000_000;
/** Largest token count the API accepts for any token parameter. */
export const MAX_TOKENS = 1_000_000_000_000;

/** The largest share of sessions the holdout may take: the treatment arm keeps at least half. */
export const MAX_HOLDOUT_FRACTION = 0.5;
/** The largest share of sessions exploration may take: it is a measurement, not the policy. */
export const MAX_EXPLORE_FRACTION = 0.5;
/** Most shards a tenant's ledger may have: a decision id keeps its shard in up to three digits. */
export const MAX_LEDGER_SHARDS = 256;
/** Shards per tenant unless config:gate says otherwise (docs/ledger.md sizes them). */
export const DEFAULT_LEDGER_SHARDS = 4;
/** How long the ledger keeps its rollups and bills unless config:gate says otherwise. */
export const DEFAULT_LEDGER_RETENTION_DAYS = 30;

/** What the proxy does with a tenant's traffic: watches it (the default), or stubs what the gate fires on (docs/design/proxy.md §8). */
export const PROXY_MODES = ["observe", "enforce"] as const;
export type ProxyMode = (typeof PROXY_MODES)[number];
/** Most tenants `proxy_modes` may name: the config is read whole on every isolate's first request. */
export const MAX_PROXY_MODE_TENANTS = 1_000;

/** The protocols price_source_url may use (zod's own http pattern, which also wants "://"). */
export const HTTP_PROTOCOLS = /^https?$/;

/**
 * What the config's fields say wrong together (zod's superRefine and the
 * compiled check both ask): raw decisions kept longer than the rollups.
 *
 * @example
 * configIssues({ ledger_raw_days: 40 }) // [{ path: ["ledger_raw_days"], message: "must be at most ledger_retention_days (30)" }]
 */
export function configIssues(
  config: Readonly<{
    ledger_retention_days?: number;
    ledger_raw_days?: number;
    proxy_modes?: Readonly<Record<string, string>> | null;
  }>,
): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  const retention = config.ledger_retention_days ?? DEFAULT_LEDGER_RETENTION_DAYS;
  if (config.ledger_raw_days !== undefined && config.ledger_raw_days > retention) {
    issues.push({ path: ["ledger_raw_days"], message: `must be at most ledger_retention_days (${retention})` });
  }
  if (config.proxy_modes != null && Object.keys(config.proxy_modes).length > MAX_PROXY_MODE_TENANTS) {
    issues.push({ path: ["proxy_modes"], message: `must name at most ${MAX_PROXY_MODE_TENANTS} tenants` });
  }
  return issues;
}

/**
 * The config in force when `config:gate` is absent or leaves a field out.
 * ./config.ts checks that it satisfies the schema's GateConfig.
 */
export const DEFAULT_GATE_CONFIG = Object.freeze({
  expected_conversation_depth: DEFAULT_EXPECTED_CONVERSATION_DEPTH,
  p_recall: DEFAULT_P_RECALL,
  // Each mode's own floor (the seed's 10,000; none in cache_aware) unless ops set one.
  large_offload_threshold_tokens: null as number | null,
  stub_tokens: DEFAULT_STUB_TOKENS,
  recall_input_tokens: DEFAULT_RECALL_INPUT_TOKENS,
  recall_output_tokens: DEFAULT_RECALL_OUTPUT_TOKENS,
  pricing_cache_ttl_seconds: 60,
  pricing_max_stale_seconds: 3_600,
  kv_budget_ms: 100,
  // The reference, unless ops choose otherwise: existing callers see no change.
  pricing_mode: "seed" as PricingMode,
  // Not always the conservative side: a warm cache shrinks the carry saving but cheapens the recall hop (docs/economics.md).
  cache_hit_rate: DEFAULT_CACHE_HIT_RATE,
  // No price sync until ops name a source.
  price_source_url: null as string | null,
  price_source_providers: null as string[] | null,
  // Nobody held out unless ops choose a holdout: today's answers, unchanged.
  holdout_fraction: 0,
  ledger_shards: DEFAULT_LEDGER_SHARDS,
  ledger_retention_days: DEFAULT_LEDGER_RETENTION_DAYS,
  // Long enough for outcomes and bills to arrive; rollups keep the figures for the retention (docs/ledger.md).
  ledger_raw_days: 2,
  // Past this the gate's ledger write is counted as failed; the answer never waits for it.
  ledger_timeout_ms: 5_000,
  // With no outcomes, learning passes the config's priors through unchanged: on by default costs nothing.
  learning_enabled: true,
  learning_prior_weight: 10,
  learning_window_days: 7,
  learning_credible: null as number | null,
  learning_refresh_seconds: 300,
  // Only a decision with something learned explores: a tenant with no outcomes answers as the config does.
  learning_explore_fraction: 0.02,
  breaker_probe_fraction: 0.1,
  breaker_min_sessions: 30,
  // Every tenant takes the deployment's PROXY_MODE (observe unless set) until ops name one.
  proxy_modes: null as Record<string, ProxyMode> | null,
});
