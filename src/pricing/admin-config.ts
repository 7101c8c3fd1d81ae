/**
 * Gate config writes for the admin API: `config:gate`, validated, audited in
 * `history:config:gate`, and served at once by the isolate that wrote it.
 */
import { ApiError } from "../http/errors";
import { canonicalJson } from "./canonical";
import { DEFAULT_GATE_CONFIG, GATE_CONFIG_KEY, GateConfigSchema, parseGateConfig, type GateConfig, type GateConfigInput } from "./config";
import { appendHistory, currentVersion, readHistory, valueAt } from "./history";
import { withKvRetry } from "./kv-retry";
import { rememberGateConfig } from "./store";

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
  const stored = text === null ? null : GateConfigSchema.safeParse(safeJson(text));
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
export async function putConfig(kv: KVNamespace, config: GateConfigInput | null, by: string, rollback?: number): Promise<ConfigView> {
  const [text, history] = await Promise.all([kv.get(GATE_CONFIG_KEY), readHistory(kv, GATE_CONFIG_KEY)]);
  const before = text === null ? null : safeJson(text);
  if (rollback === undefined && canonicalJson(before) === canonicalJson(config)) {
    return { ...(await readConfigView(kv)), changed: false };
  }
  if (config === null) await withKvRetry(() => kv.delete(GATE_CONFIG_KEY), GATE_CONFIG_KEY);
  else await withKvRetry(() => kv.put(GATE_CONFIG_KEY, JSON.stringify(config)), GATE_CONFIG_KEY);
  const entry = await appendHistory(kv, GATE_CONFIG_KEY, history, {
    action: rollback !== undefined ? "rollback" : "put",
    by,
    before,
    after: config,
    ...(rollback !== undefined ? { rolled_back_to: rollback } : {}),
  });
  rememberGateConfig(config);
  const effective = { ...DEFAULT_GATE_CONFIG, ...(config ?? {}) };
  return { stored: config, effective, problem: null, version: entry.version, changed: true };
}

/**
 * Restores `config:gate` as it stood at `version`, recorded as a change.
 *
 * @example
 * await rollbackConfig(env.PRICING, 2, "ops-alice");
 */
export async function rollbackConfig(kv: KVNamespace, version: number, by: string): Promise<ConfigView> {
  const history = await readHistory(kv, GATE_CONFIG_KEY);
  const target = valueAt(history, version);
  if (!target.found) {
    throw new ApiError("not_found", `${GATE_CONFIG_KEY} has no version ${version}`, [{ path: "version", message: "is not in the history" }]);
  }
  if (target.value === null) return putConfig(kv, null, by, version);
  const parsed = GateConfigSchema.safeParse(target.value);
  if (!parsed.success) {
    throw new ApiError("invalid_request", `version ${version} of ${GATE_CONFIG_KEY} is not a valid config`, [
      { path: "version", message: "holds an invalid config" },
    ]);
  }
  return putConfig(kv, parsed.data, by, version);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
