import { MAX_LEDGER_SHARDS } from "../../storage/rules";

/**
 * Decision ids and shard routing. Pure: the random bytes come from the
 * caller (the route layer draws them from crypto), so the same bytes always
 * make the same id.
 */

/**
 * `dec_<shard>_<32 hex>`: the shard an outcome must go to, then 128 random
 * bits (the base); a signed id adds `_<8 hex>_<16 hex>`: the second it was
 * issued and its tag (./id-signing.ts). The shard stays first so routing an
 * outcome is a parse, signed or not.
 */
export const DECISION_ID_PATTERN = /^dec_(0|[1-9]\d{0,2})_([0-9a-f]{32})(?:_([0-9a-f]{8})_([0-9a-f]{16}))?$/;

/** A decision id's parts: the base (`dec_<shard>_<32 hex>`), and for a signed one its issue second and tag. */
export interface DecisionIdParts {
  shard: number;
  base: string;
  /** Unix seconds, as 8 hex digits; null on an unsigned id. */
  issued: string | null;
  tag: string | null;
}

/**
 * The parts of a decision id, or null when it is not one.
 *
 * @example
 * parseDecisionId("dec_3_ffffffffffffffffffffffffffffffff") // { shard: 3, base: "dec_3_ff…", issued: null, tag: null }
 */
export function parseDecisionId(id: string): DecisionIdParts | null {
  const match = DECISION_ID_PATTERN.exec(id);
  if (match === null) return null;
  const shard = Number(match[1]);
  if (shard >= MAX_LEDGER_SHARDS) return null;
  const base = `dec_${match[1]}_${match[2]}`;
  return { shard, base, issued: match[3] ?? null, tag: match[4] ?? null };
}

/** Random bytes one decision id takes. */
export const DECISION_ID_RANDOM_BYTES = 16;

/**
 * The id of a decision stored in `shard`, from 16 random bytes.
 *
 * @example
 * formatDecisionId(3, new Uint8Array(16).fill(255)) // "dec_3_ffffffffffffffffffffffffffffffff"
 */
export function formatDecisionId(shard: number, random: Uint8Array): string {
  if (!Number.isInteger(shard) || shard < 0 || shard >= MAX_LEDGER_SHARDS)
    throw new RangeError(`shard ${shard} is out of range`);
  if (random.length !== DECISION_ID_RANDOM_BYTES)
    throw new RangeError(`a decision id takes ${DECISION_ID_RANDOM_BYTES} random bytes`);
  let hex = "";
  for (const byte of random) hex += byte.toString(16).padStart(2, "0");
  return `dec_${shard}_${hex}`;
}

/**
 * The shard a decision id names, or null when it is not a decision id.
 *
 * @example
 * shardOfDecisionId("dec_3_ffffffffffffffffffffffffffffffff") // 3
 * shardOfDecisionId("dec_3_ff…ff_6930a1c0_1b2c…") // 3: signed ids route the same
 * shardOfDecisionId("nope") // null
 */
export function shardOfDecisionId(id: string): number | null {
  return parseDecisionId(id)?.shard ?? null;
}

/**
 * A uniform draw in [0, 1) from a string: 32 bits of FNV-1a, then a
 * murmur3 finalizer so that ids differing in one character spread out.
 *
 * @example
 * unitHash("acme\u0000session-1") // the same number on every call, in [0, 1)
 */
export function unitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 0x1_0000_0000;
}

/**
 * The shard a session's decisions and its bill live in, so that the
 * savings report can join them in one place. A decision without a session
 * goes to the shard its random bytes pick.
 *
 * @example
 * shardFor("acme", "session-1", 8, random) // the same shard for every decision of session-1
 * shardFor("acme", null, 8, random)        // random[0] % 8
 */
export function shardFor(tenant: string, sessionId: string | null, shards: number, random: Uint8Array): number {
  if (sessionId !== null) return Math.floor(unitHash(`shard\u0000${tenant}\u0000${sessionId}`) * shards);
  return (random[0] ?? 0) % shards;
}

/**
 * What the holdout is drawn on (docs/design/ledger.md §2): the (session, tool) pair,
 * with `""` for a decision without a tool, or the decision id itself when
 * there is no session. So within one session each tool has its own arm,
 * independent of every other tool's.
 *
 * @example
 * holdoutKey("session-1", "grep", "dec_0_…") // "session-1\u0000grep"
 * holdoutKey("session-1", null, "dec_0_…")   // "session-1\u0000"
 * holdoutKey(null, "grep", "dec_0_ab…")      // "dec_0_ab…"
 */
export function holdoutKey(sessionId: string | null, toolName: string | null, decisionId: string): string {
  return sessionId === null ? decisionId : `${sessionId}\u0000${toolName ?? ""}`;
}

/**
 * Whether a (session, tool) pair (or, without a session, the decision
 * itself) is in the holdout: a hash of (tenant, key) below the fraction.
 * Deterministic, so every decision about a tool in a session lands in the
 * same arm; nested, so raising the fraction only adds pairs to the holdout.
 *
 * @example
 * inHoldout("acme", holdoutKey("session-1", "grep", id), 0)   // false: the default holds nobody out
 * inHoldout("acme", holdoutKey("session-1", "grep", id), 0.1) // true for about one pair in ten, always the same ones
 */
export function inHoldout(tenant: string, key: string, fraction: number): boolean {
  if (!(fraction > 0)) return false;
  return unitHash(`holdout\u0000${tenant}\u0000${key}`) < fraction;
}

/**
 * Whether a (session, tool) explores (docs/learning.md § Exploration): a hash
 * of (tenant, session, tool, "explore") below `learning_explore_fraction`,
 * drawn apart from the holdout's and the probes' hashes, so the breaker can
 * set exploring sessions aside in both arms alike.
 *
 * @example
 * isExplore("acme", "s-1", "read_file", 0.02) // the same answer on every call
 */
export function isExplore(tenant: string, key: string, tool: string, fraction: number): boolean {
  return fraction > 0 && unitHash(`${tenant}\u0000${key}\u0000${tool}\u0000explore`) < fraction;
}

/**
 * Whether an open breaker still lets this (session, tool) decide as usual:
 * a hash of (tenant, session, tool, "probe") below `breaker_probe_fraction`,
 * so evidence keeps arriving while the breaker is open.
 *
 * @example
 * isProbe("acme", "s-1", "read_file", 0.1) // the same answer on every call
 */
export function isProbe(tenant: string, key: string, tool: string, fraction: number): boolean {
  return unitHash(`${tenant}\u0000${key}\u0000${tool}\u0000probe`) < fraction;
}
