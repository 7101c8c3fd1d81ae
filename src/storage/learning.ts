/**
 * The gate's read of a tenant's learned value (`learning:<tenant>`), served
 * from the isolate's RefreshingCache like pricing rows: no KV read per
 * request while it is held. A missing, corrupt or unreachable value is
 * `null`: the config's priors, never a failed or slower decision.
 */

import { RefreshingCache } from "./cache";
import { checkedLearned, jsonOrUndefined, lazily } from "./checked";
import { cachePolicy } from "./read";
import { learningKey } from "./rules";
import type { GateConfig, LearnedValue } from "./schemas";

export type { BreakerState, LearnedValue, ReplayTools, ToolTrust, TrustFlag } from "./schemas";

// One value per tenant; "nothing learned" is as worth holding as a value.
const learned = new RefreshingCache<Readonly<LearnedValue> | null>({
  maxEntries: 1_024,
  isNegative: (value) => value === null,
});

/**
 * A tenant's learned value, from the isolate when it holds one: null when
 * there is none, it cannot be parsed, or KV does not answer within the
 * budget (then the gate decides on the config's priors).
 *
 * @example
 * const value = await readLearned(env.PRICING, "acme", config, ctx.waitUntil.bind(ctx));
 */
export async function readLearned(
  kv: KVNamespace,
  tenant: string,
  config: Readonly<GateConfig>,
  waitUntil: (promise: Promise<unknown>) => void,
): Promise<Readonly<LearnedValue> | null> {
  const read = await learned.read(
    learningKey(tenant),
    (ioDone) => loadLearned(kv, tenant, ioDone),
    cachePolicy(config),
    waitUntil,
  );
  return read.kind === "miss" ? null : read.value;
}

/** Serves a value this isolate just published, without waiting for KV to propagate it. */
export function rememberLearned(tenant: string, value: Readonly<LearnedValue> | null): void {
  learned.set(learningKey(tenant), value);
}

/** Forgets every held learned value (tests). */
export function forgetLearned(): void {
  learned.clear();
}

/** Cache counters of this isolate's learned values (the no-extra-read test reads them). */
export function learnedCacheStats() {
  return { ...learned.stats };
}

/**
 * A stored learned value, as ./learning-schema.ts's parseLearned answers it:
 * the compiled check first, zod only for a value it refuses.
 *
 * @example
 * await parseStoredLearned("acme", null) // { value: null, problem: null }
 */
export async function parseStoredLearned(
  tenant: string,
  text: string | null,
): Promise<{ value: Readonly<LearnedValue> | null; problem: string | null }> {
  if (text === null) return { value: null, problem: null };
  const checked = checkedLearned(jsonOrUndefined(text));
  if (checked === undefined || checked.tenant !== tenant) return (await zodLearned()).parseLearned(tenant, text);
  return { value: Object.freeze(checked), problem: null };
}

// The zod side, loaded only for a value the compiled check refuses: zod words why.
const zodLearned = lazily(() => import("./schemas/learning-schema"));

// ioDone once the KV read is in: zod, loaded for a value the compiled check refuses, is not KV time.
async function loadLearned(
  kv: KVNamespace,
  tenant: string,
  ioDone: () => void,
): Promise<Readonly<LearnedValue> | null> {
  const text = await kv.get(learningKey(tenant));
  ioDone();
  const { value, problem } = await parseStoredLearned(tenant, text);
  // Logged once per load (once per TTL per isolate), not once per request.
  if (problem !== null) console.warn(`offload-gate: ${problem}; deciding on the config's priors`);
  return value;
}
