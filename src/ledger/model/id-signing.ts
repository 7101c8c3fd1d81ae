/**
 * Signed decision ids (docs/ledger.md § Decision ids). The gate signs each
 * id it answers with an HMAC-SHA-256 over the tenant, the base id (shard
 * and random part) and the second it was issued, keyed by the secret
 * `DECISION_ID_KEY`. `/v1/outcomes` checks the tag before it asks any shard:
 * a forged id, or one of another tenant (the tenant is inside the MAC), is
 * refused unasked, and an authentic id whose decision is still in the queue
 * may wait in its shard as a pending outcome instead of being refused.
 *
 * Rotation: `DECISION_ID_KEY_PREVIOUS` still verifies (never signs) while
 * both are set. With no key, ids are issued unsigned (the base alone), as
 * before; those are checked by asking their shard, and an early outcome for
 * one is unknown_decision, as it always was.
 *
 * The CryptoKeys are imported once per isolate and per secret value: the
 * hot path signs with a cached key (one HMAC over ~100 bytes, microseconds).
 *
 * @module
 */
import { parseDecisionId } from "./ids";

/** The secrets, as the worker's env holds them (empty means unset). */
export interface DecisionIdKeys {
  DECISION_ID_KEY?: string | undefined;
  DECISION_ID_KEY_PREVIOUS?: string | undefined;
}

/**
 * Bytes of the HMAC kept in an id: 64 bits. A forger must guess a tag per
 * try, online, through a rate-limited route: 2^64 tries at a million a
 * second is over 500,000 years, while the id stays short enough for an
 * Analytics Engine blob and a log line. (NIST SP 800-107 allows truncating
 * an HMAC to any length ≥ 32 bits when guesses are limited this way.)
 */
export const TAG_BYTES = 8;

const keyCache = new Map<string, Promise<CryptoKey>>();

/** The CryptoKey of one secret value, imported once per isolate. */
function cryptoKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (key === undefined) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    // A failed import is not cached: the next request tries again.
    key.catch(() => keyCache.delete(secret));
    keyCache.set(secret, key);
  }
  return key;
}

const set = (value: string | undefined): value is string => value !== undefined && value !== "";

/** What the MAC covers: the tenant, the base id (shard and random part), the issue second. */
const signed = (tenant: string, base: string, issued: string) =>
  `decision-id\u0000${tenant}\u0000${base}\u0000${issued}`;

async function tagOf(secret: string, tenant: string, base: string, issued: string): Promise<string> {
  const mac = await crypto.subtle.sign(
    "HMAC",
    await cryptoKey(secret),
    new TextEncoder().encode(signed(tenant, base, issued)),
  );
  let hex = "";
  for (const byte of new Uint8Array(mac, 0, TAG_BYTES)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Whether the gate signs its ids: DECISION_ID_KEY is set and not empty.
 *
 * @example
 * signsIds(env) // false when no key is configured: ids are issued unsigned
 */
export function signsIds(keys: DecisionIdKeys): boolean {
  return set(keys.DECISION_ID_KEY);
}

/**
 * The id the gate answers with: the base signed with DECISION_ID_KEY and
 * the second `at` falls in, or the base itself when no key is set.
 *
 * @example
 * await signDecisionId(env, "acme", "dec_3_ff…ff", Date.now()) // "dec_3_ff…ff_6930a1c0_9b1e…"
 */
export async function signDecisionId(keys: DecisionIdKeys, tenant: string, base: string, at: number): Promise<string> {
  if (!set(keys.DECISION_ID_KEY)) return base;
  const issued = Math.floor(at / 1000)
    .toString(16)
    .padStart(8, "0");
  return `${base}_${issued}_${await tagOf(keys.DECISION_ID_KEY, tenant, base, issued)}`;
}

/** Equal strings in time that depends on their length only. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** How an id checks out: signed by a key in force (with its issue time), unsigned, or not the gate's. */
export type IdCheck = { kind: "authentic"; issuedMs: number } | { kind: "unsigned" } | { kind: "forged" };

/**
 * Checks an id's tag against the current key and, during a rotation, the
 * previous one. An unsigned id is `unsigned` (its shard is asked, as
 * before); a signed id with no key set to check it, or a tag neither key
 * made, is `forged`.
 *
 * @example
 * await checkDecisionId(env, "acme", id) // { kind: "authentic", issuedMs: 1_764_700_000_000 }
 */
export async function checkDecisionId(keys: DecisionIdKeys, tenant: string, id: string): Promise<IdCheck> {
  const parts = parseDecisionId(id);
  if (parts === null) return { kind: "forged" };
  if (parts.tag === null || parts.issued === null) return { kind: "unsigned" };
  for (const secret of [keys.DECISION_ID_KEY, keys.DECISION_ID_KEY_PREVIOUS]) {
    if (!set(secret)) continue;
    if (constantTimeEqual(await tagOf(secret, tenant, parts.base, parts.issued), parts.tag))
      return { kind: "authentic", issuedMs: Number.parseInt(parts.issued, 16) * 1000 };
  }
  return { kind: "forged" };
}
