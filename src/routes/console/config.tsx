import type { GateConfig } from "../../storage/schemas";

/** The stored gate config as the console read it, or why it could not. */
export type ConfigView = { ok: true; config: Readonly<GateConfig> } | { ok: false; detail: string };

const CONFIG_MEANING: Record<keyof GateConfig, string> = {
  expected_conversation_depth: "the horizon prior: turns an output would be carried",
  p_recall: "the recall-probability prior",
  large_offload_threshold_tokens:
    "the size floor: smaller outputs never fire (null: 10,000 in seed mode, none in cache_aware)",
  stub_tokens: "tokens the stub costs every turn",
  recall_input_tokens: "tokens a recall hop re-reads",
  recall_output_tokens: "tokens a recall hop answers with",
  pricing_cache_ttl_seconds: "how long an isolate keeps a row",
  pricing_max_stale_seconds: "how long past its TTL a row may serve while KV fails",
  kv_budget_ms: "the longest a request waits on KV",
  pricing_mode: "the pricing mode when a request names none",
  cache_hit_rate: "the cache-hit prior of cache-aware pricing",
  price_source_url: "the price file the scheduled sync compares with KV",
  price_source_providers: "the providers the sync compares (all in KV when unset)",
  holdout_fraction: "the share of sessions answered never-fire, to measure savings against",
  ledger_shards: "outcomes-ledger shards per tenant",
  ledger_retention_days: "how long the ledger keeps its rollups, session summaries and bills",
  ledger_raw_days: "how long the ledger keeps raw decisions and outcomes (an outcome must arrive within it)",
  ledger_timeout_ms: "past this a ledger write counts as failed (the answer never waits)",
  learning_enabled: "learn priors and run the breaker from the ledger",
  learning_prior_weight: "how many observations a parent level's value counts as",
  learning_window_days: "the days of outcomes the learner reads",
  learning_credible: "a learned value's credible range becomes its range (off when unset)",
  learning_refresh_seconds: "how often a tenant's learned value is recomputed",
  learning_explore_fraction: "the share of a tool's sessions that decide on its learned p's lower credible bound",
  breaker_probe_fraction: "the share of sessions an open breaker still decides as usual",
  breaker_min_sessions: "sessions the realized-net breaker rule needs before it judges",
  proxy_modes:
    "per tenant, the proxy's mode (observe or enforce) over PROXY_MODE (every tenant takes PROXY_MODE when unset)",
};

// A record field (proxy_modes) is shown as its JSON, not as "[object Object]".
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The gate config in force, each field with what it means, or why
 * config:gate cannot be trusted (then the gate does not fire).
 *
 * @example
 * <ConfigPanel config={{ ok: true, config }} />
 */
export function ConfigPanel({ config }: { config: ConfigView }) {
  return (
    <section class="card" id="config" aria-labelledby="config-h">
      <h2 id="config-h">Gate config priors</h2>
      {config.ok ? (
        <table class="config">
          <caption class="sr-only">The gate config in force: config:gate over the defaults</caption>
          <tbody>
            {(Object.keys(CONFIG_MEANING) as (keyof GateConfig)[]).map((key) => (
              <tr>
                <th scope="row">
                  <code>{key}</code>
                </th>
                <td class="num">
                  {typeof config.config[key] === "number"
                    ? config.config[key].toLocaleString("en-US")
                    : isPlainRecord(config.config[key])
                      ? JSON.stringify(config.config[key])
                      : String(config.config[key])}
                </td>
                <td class="meaning">{CONFIG_MEANING[key]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="banner bad" role="alert">
          {config.detail}. Until it is fixed the gate does not fire (<code>pricing_unavailable</code>).
        </p>
      )}
    </section>
  );
}
