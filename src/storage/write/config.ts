/**
 * Gate config writes for the admin API: `config:gate`, validated, audited in
 * `history:config:gate`, and served at once by the isolate that wrote it.
 */

import { rememberGateConfig } from "..";
import { DEFAULT_GATE_CONFIG, GATE_CONFIG_KEY } from "../rules";
import {
  currentVersion,
  type GateConfig,
  type GateConfigInput,
  GateConfigSchema,
  parseGateConfig,
  storedValue,
} from "../schemas";
import { auditedWrite, restorable } from "./audited";
import { canonicalJson } from "./canonical";
import { readHistory } from "./history";
import { withKvRetry } from "./kv-retry";

/** The config as stored, the config in force, and its version. */
export interface ConfigView {
  stored: GateConfigInput | null;
  effective: Readonly<GateConfig>;
  problem: string | null;
  version: number;
  changed?: boolean;
}

/**
 * Reads `config:gate` as stored and as in force.
 *
 * @example
 * const { effective } = await readConfigView(env.PRICING);
 */
export async function readConfigView(kv: KVNamespace): Promise<ConfigView> {
  const [text, history] = await Promise.all([kv.get(GATE_CONFIG_KEY), readHistory(kv, GATE_CONFIG_KEY)]);
  const parsed = parseGateConfig(text);
  const stored = text === null ? null : GateConfigSchema.safeParse(storedValue(text));
  return {
    stored: stored?.success ? stored.data : null,
    effective: parsed.ok ? parsed.config : DEFAULT_GATE_CONFIG,
    problem: parsed.ok ? null : parsed.detail,
    version: currentVersion(history),
  };
}

/**
 * Replaces `config:gate` with a validated config (null: remove it, so the
 * defaults apply) and records the change; writing what is already stored
 * changes nothing.
 *
 * @example
 * await putConfig(env.PRICING, { p_recall: 0.2 }, "ops-alice");
 */
export async function putConfig(
  kv: KVNamespace,
  config: GateConfigInput | null,
  by: string,
  rollbackTo?: number,
): Promise<ConfigView> {
  const [text, history] = await Promise.all([kv.get(GATE_CONFIG_KEY), readHistory(kv, GATE_CONFIG_KEY)]);
  const before = text === null ? null : storedValue(text);
  const change = { subject: GATE_CONFIG_KEY, by, before, after: config, history, rollbackTo };
  const outcome = await auditedWrite(kv, change, async () => {
    // A retry whose write already went through has nothing left to do.
    if (canonicalJson(before) === canonicalJson(config)) return false;
    if (config === null) await withKvRetry(() => kv.delete(GATE_CONFIG_KEY), GATE_CONFIG_KEY);
    else await withKvRetry(() => kv.put(GATE_CONFIG_KEY, JSON.stringify(config)), GATE_CONFIG_KEY);
    return true;
  });
  if (!outcome.changed) return { ...(await readConfigView(kv)), changed: false };
  rememberGateConfig(config);
  const effective = { ...DEFAULT_GATE_CONFIG, ...(config ?? {}) };
  return { stored: config, effective, problem: null, version: outcome.version, changed: true };
}

/**
 * Restores `config:gate` as it stood at `version`, recorded as a change.
 *
 * @example
 * await rollbackConfig(env.PRICING, 2, "ops-alice");
 */
export async function rollbackConfig(kv: KVNamespace, version: number, by: string): Promise<ConfigView> {
  const history = await readHistory(kv, GATE_CONFIG_KEY);
  const wording = { name: GATE_CONFIG_KEY, noun: "config", listRange: false, invalidTail: "" };
  return putConfig(kv, restorable(history, version, GateConfigSchema, wording), by, version);
}
