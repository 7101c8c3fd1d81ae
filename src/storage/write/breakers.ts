/**
 * Ops overrides of a tenant's breakers (`breakers:<tenant>`: {tool: "open" |
 * "closed"}; a tool left out is the rule's, "auto"), audited in
 * `history:breakers:<tenant>` with rollback like every other admin write.
 */
import { z } from "@hono/zod-openapi";
import { breakersKey, dict, TOOL_NAME_PATTERN } from "../rules";
import { nameRecord, storedValue } from "../schemas";
import { restorable, writeAuditedValue } from "./audited";
import { readHistory } from "./history";

/** A forced state; "auto" hands the breaker back to the rule. */
export const BREAKER_MODES = ["open", "closed", "auto"] as const;
export type BreakerMode = (typeof BREAKER_MODES)[number];

/** What `breakers:<tenant>` holds. */
export const BreakerOverridesSchema = nameRecord(z.enum(["open", "closed"]), z.string().regex(TOOL_NAME_PATTERN));
export type BreakerOverrides = z.infer<typeof BreakerOverridesSchema>;

/**
 * A tenant's overrides; a corrupt value counts as none (logged), so the rule
 * keeps judging.
 *
 * @example
 * await readOverrides(env.PRICING, "acme") // { read_file: "closed" }
 */
export async function readOverrides(kv: KVNamespace, tenant: string): Promise<BreakerOverrides> {
  const text = await kv.get(breakersKey(tenant));
  if (text === null) return {};
  const parsed = BreakerOverridesSchema.safeParse(storedValue(text));
  if (parsed.success) return parsed.data;
  console.warn(`offload-gate: ${breakersKey(tenant)} is invalid; the breakers follow the rule`);
  return {};
}

/** A tenant's overrides after a write, and the key's version. */
export interface OverridesView {
  tenant: string;
  overrides: BreakerOverrides;
  version: number;
  changed: boolean;
}

/**
 * Forces one tool's breaker open or closed, or hands it back to the rule
 * ("auto"), recorded in the key's history.
 *
 * @example
 * await putBreakerMode(env.PRICING, "acme", "read_file", "closed", "ops-alice");
 */
export async function putBreakerMode(
  kv: KVNamespace,
  tenant: string,
  tool: string,
  mode: BreakerMode,
  by: string,
): Promise<OverridesView> {
  const current = await readOverrides(kv, tenant);
  const next: BreakerOverrides = dict(Object.entries(current).filter(([name]) => name !== tool));
  if (mode !== "auto") next[tool] = mode;
  return writeOverrides(kv, tenant, Object.keys(next).length === 0 ? null : next, by);
}

/**
 * Restores a tenant's overrides as they stood at `version`, recorded as a change.
 *
 * @example
 * await rollbackOverrides(env.PRICING, "acme", 1, "ops-alice");
 */
export async function rollbackOverrides(
  kv: KVNamespace,
  tenant: string,
  version: number,
  by: string,
): Promise<OverridesView> {
  const history = await readHistory(kv, breakersKey(tenant));
  const wording = { name: breakersKey(tenant), noun: "set of breaker overrides", listRange: true, invalidTail: "" };
  return writeOverrides(kv, tenant, restorable(history, version, BreakerOverridesSchema, wording), by, version);
}

async function writeOverrides(
  kv: KVNamespace,
  tenant: string,
  after: BreakerOverrides | null,
  by: string,
  rollbackTo?: number,
): Promise<OverridesView> {
  const key = breakersKey(tenant);
  const outcome = await writeAuditedValue(kv, key, after, by, rollbackTo);
  return { tenant, overrides: after ?? {}, version: outcome.version, changed: outcome.changed };
}
