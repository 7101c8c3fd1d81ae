/**
 * The learning refresh (docs/design/learning.md §5): merge a tenant's shards,
 * judge its breakers, publish one KV value (`learning:<tenant>`) that the
 * gate reads through its isolate cache. Never on the hot path: the Cron
 * Trigger runs it for every tenant whose value is older than
 * `learning_refresh_seconds`, and POST /v1/admin/learning/refresh runs it at
 * once.
 */
import { gatherRows, writtenShards } from "../../ledger";
import { type LearnedValue, rememberLearned } from "../../storage";
import { GATE_CONFIG_KEY, learningKey } from "../../storage/rules";
import { type GateConfig, parseGateConfig, parseLearned } from "../../storage/schemas";
import { readAcks, readReplayPriors } from "../../storage/write";
import { type BreakerChange, judgeBreakers } from "./breakers";
import { mergeLevels } from "./merge";
import { toolTrust } from "./trust";

const DAY_MS = 86_400_000;

/** What one refresh did. */
export interface RefreshReport {
  tenant: string;
  status: "published" | "disabled" | "partial" | "config_unavailable";
  detail: string | null;
  computed_at: number | null;
  tools: number;
  breaker_changes: BreakerChange[];
  shards: { queried: number; unavailable: number };
}

/**
 * One refresh of one tenant. A shard that does not answer leaves the last
 * value in place (a partial merge would bias every level); a config that
 * cannot be read publishes nothing (the gate does not fire on it anyway).
 *
 * @example
 * const report = await refreshLearning(env, "acme", Date.now(), "ops-alice");
 */
export async function refreshLearning(
  env: Env,
  tenant: string,
  now: number,
  by = "learning-refresh",
): Promise<RefreshReport> {
  const parsed = parseGateConfig(await env.PRICING.get(GATE_CONFIG_KEY));
  const base = { tenant, computed_at: null, tools: 0, breaker_changes: [], shards: { queried: 0, unavailable: 0 } };
  if (!parsed.ok) return { ...base, status: "config_unavailable", detail: parsed.detail };
  const config = parsed.config;
  if (!config.learning_enabled)
    return { ...base, status: "disabled", detail: "learning_enabled is false in config:gate" };

  const days = Math.min(config.learning_window_days, config.ledger_retention_days);
  const window = { from: now - days * DAY_MS, to: now + 1 };
  // Only the shards the tenant ever wrote: a tenant that never wrote touches no object.
  const written = await writtenShards(env.PRICING, tenant, config.ledger_shards);
  const shards = { queried: written.length, unavailable: 0 };
  const options = { ...shardOptions(config), shards: written };
  const [gathered, reporting, previous, replay, acks] = await Promise.all([
    gatherRows(env.LEDGER, tenant, options, (shard) => shard.learningSums(tenant, window.from, window.to)),
    // What the reporting flags judge (./trust.ts): the raw rows' counts over the same window.
    gatherRows(env.LEDGER, tenant, options, (shard) => shard.reporting(tenant, window.from, window.to)),
    readPublished(env.PRICING, tenant),
    readReplayPriors(env.PRICING, tenant),
    readAcks(env.PRICING, tenant),
  ]);
  shards.unavailable = Math.max(gathered.unavailable, reporting.unavailable);
  if (shards.unavailable > 0) {
    return {
      ...base,
      shards,
      status: "partial",
      detail: `${shards.unavailable} of ${written.length} shard(s) did not answer; the last value stays`,
    };
  }
  const levels = mergeLevels(gathered.rows);
  const judged = await judgeBreakers(env, {
    tenant,
    config,
    now,
    window,
    previous,
    tools: Object.keys(levels.tools),
    by,
  });
  if (!judged.ok) return { ...base, shards, status: "partial", detail: judged.detail };
  const trust = toolTrust(reporting.rows, acks);
  // The replay level travels in the value the gate already reads: no second KV read per request.
  const value: LearnedValue = {
    version: 1,
    tenant,
    computed_at: now,
    window,
    ...levels,
    breakers: judged.breakers,
    ...(replay === null ? {} : { replay: replay.tools }),
    ...(trust === null ? {} : { trust }),
  };
  await env.PRICING.put(learningKey(tenant), JSON.stringify(value));
  rememberLearned(tenant, Object.freeze(value));
  return {
    ...base,
    shards,
    status: "published",
    detail: null,
    computed_at: now,
    tools: Object.keys(levels.tools).length,
    breaker_changes: judged.changes,
  };
}

/**
 * A tenant's published value as KV holds it now (not the isolate's copy), or
 * null when there is none or it is corrupt (then it is replaced).
 *
 * @example
 * await readPublished(env.PRICING, "acme") // { version: 1, computed_at: …, … } | null
 */
export async function readPublished(kv: KVNamespace, tenant: string): Promise<Readonly<LearnedValue> | null> {
  return parseLearned(tenant, await kv.get(learningKey(tenant))).value;
}

/**
 * Whether a tenant's value is due: absent, or older than the refresh period.
 *
 * @example
 * isDue(null, config, Date.now()) // true
 */
export function isDue(value: Readonly<LearnedValue> | null, config: Readonly<GateConfig>, now: number): boolean {
  return value === null || now - value.computed_at >= config.learning_refresh_seconds * 1000;
}

/** Where a tenant's ledger is, and how long each shard may take. */
export function shardOptions(config: Readonly<GateConfig>): { shards: number; timeoutMs: number } {
  return { shards: config.ledger_shards, timeoutMs: config.ledger_timeout_ms };
}
