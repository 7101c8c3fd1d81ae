import { namedTenant } from "../../auth";
import { ApiError } from "../../http";
import { LEDGER_SHARD_PREFIX } from "../../storage/rules";

/**
 * Refuses an admin write of learning values for a tenant nobody can be: one
 * no gate key names, that never wrote a ledger row and has nothing under
 * `key` yet. A typo in `?tenant=` would otherwise publish a learned value
 * no caller reads (docs/api/learning.md). A tenant whose key was retired
 * keeps its data, so ops can still replace or withdraw what it has.
 *
 * @example
 * await requireKnownTenant(env, "acme", replayPriorsKey("acme")); // throws the 404 naming tenant
 */
export async function requireKnownTenant(env: Env, tenant: string, key: string): Promise<void> {
  if (await namedTenant(env.GATE_API_KEYS, tenant)) return;
  const [rows, held] = await Promise.all([
    env.PRICING.list({ prefix: `${LEDGER_SHARD_PREFIX}${tenant}:`, limit: 1 }),
    env.PRICING.get(key),
  ]);
  if (rows.keys.length > 0 || held !== null) return;
  throw new ApiError(
    "not_found",
    `tenant ${tenant} is not named by GATE_API_KEYS and has no data: nothing to write learning values for`,
    [{ path: "tenant", message: "is not a tenant of this gate" }],
  );
}
