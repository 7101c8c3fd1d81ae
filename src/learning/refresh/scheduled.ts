/**
 * The learning refresh's schedule: a Cron Trigger every minute
 * (LEARNING_CRON in wrangler.toml) refreshes each tenant whose published
 * value is older than `learning_refresh_seconds`. The tenants are the gate
 * keys' names (GATE_API_KEYS), or `default` while the gate is open.
 */
import { isSet, keyRing, OPEN_TENANT } from "../../auth";
import { GATE_CONFIG_KEY } from "../../storage/rules";
import { parseGateConfig } from "../../storage/schemas";
import { isDue, type RefreshReport, readPublished, refreshLearning } from "./refresh";

/** The Cron Trigger that runs the learning refresh. */
export const LEARNING_CRON = "* * * * *";

/**
 * The tenants a refresh covers.
 *
 * @example
 * await knownTenants({ GATE_API_KEYS: "acme:…,beta:…" }) // ["acme", "beta"]
 */
export async function knownTenants(env: Pick<Env, "GATE_API_KEYS">): Promise<string[]> {
  if (!isSet(env.GATE_API_KEYS)) return [OPEN_TENANT];
  return [...new Set((await keyRing(env.GATE_API_KEYS, OPEN_TENANT, "GATE_API_KEYS")).names)].sort();
}

/**
 * One scheduled pass: every due tenant refreshed, one after another (a
 * tenant's refresh is a handful of shard reads and one KV write).
 *
 * @example
 * const reports = await runLearningRefresh(env, Date.now());
 */
export async function runLearningRefresh(env: Env, now: number): Promise<RefreshReport[]> {
  const parsed = parseGateConfig(await env.PRICING.get(GATE_CONFIG_KEY));
  if (!parsed.ok || !parsed.config.learning_enabled) return [];
  const reports: RefreshReport[] = [];
  for (const tenant of await knownTenants(env)) {
    if (!isDue(await readPublished(env.PRICING, tenant), parsed.config, now)) continue;
    const report = await refreshLearning(env, tenant, now);
    if (report.status !== "published")
      console.warn(`offload-gate: learning refresh of ${tenant}: ${report.status}: ${report.detail}`);
    reports.push(report);
  }
  return reports;
}
