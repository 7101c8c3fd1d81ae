import { familySummaries } from "../../learning";
import { breakerLogSubject, learningView } from "../../learning/refresh";
import { DEFAULT_GATE_CONFIG, GATE_CONFIG_KEY, historyKey, learningKey } from "../../storage/rules";
import { type GateConfig, parseGateConfig, parseHistory, parseLearned } from "../../storage/schemas";

/** How many breaker changes the view lists. */
export const BREAKER_LOG_SHOWN = 20;

/**
 * What the breaker's rule can see with the holdout in force: the console and
 * the API say it beside every breaker.
 *
 * @example
 * breakerRuleSees({ ...DEFAULT_GATE_CONFIG, holdout_fraction: 0 }) // "realized net only: …"
 */
export function breakerRuleSees(config: Readonly<GateConfig>): string {
  return config.holdout_fraction > 0
    ? "holdout: treatment − holdout on the sessions' bills, so it sees costs the gate's model does not (a tool re-run instead of recalled, longer sessions after a stub)"
    : "realized net only (holdout_fraction is 0): it cannot see costs the gate's model misses, such as a tool re-run instead of recalled or longer sessions after a stub; set a holdout to see them";
}

/**
 * A tenant's learning view, read from KV as it stands (not the isolate's
 * copy): the published value, the config, and the breaker log.
 *
 * @example
 * await readLearningView(env.PRICING, "acme")
 */
export async function readLearningView(kv: KVNamespace, tenant: string) {
  const [configText, valueText, logText] = await Promise.all([
    kv.get(GATE_CONFIG_KEY),
    kv.get(learningKey(tenant)),
    kv.get(historyKey(breakerLogSubject(tenant))),
  ]);
  const parsedConfig = parseGateConfig(configText);
  const config = parsedConfig.ok ? parsedConfig.config : DEFAULT_GATE_CONFIG;
  const { value, problem } = parseLearned(tenant, valueText);
  const log = parseHistory(logText)?.entries ?? [];
  return {
    ...learningView(tenant, value, config),
    breaker_rule_sees: breakerRuleSees(config),
    problem: problem ?? (parsedConfig.ok ? null : parsedConfig.detail),
    breaker_log: log.slice(-BREAKER_LOG_SHOWN).reverse(),
    families: familySummaries(),
  };
}
