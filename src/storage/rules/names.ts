/**
 * Records keyed by names that come from requests: tool, model, session and
 * tenant names. A plain object answers `tools["constructor"]` with
 * Object.prototype's function and drops or misreads `"__proto__"`, so a tool
 * named after a built-in property once answered 500 for its whole tenant.
 * These records have no prototype, and every lookup reads own keys only.
 *
 * Also what a model name may be: the pattern and the reserved names, which
 * the row schema (./schema.ts) and the gate's compiled request validator read.
 *
 * Free of zod, so the gate's startup path may import it.
 *
 * @module
 */

/**
 * An empty record with no prototype: any name is an ordinary key.
 *
 * @example
 * const tools = dict<number>(); tools["__proto__"] = 1; Object.keys(tools) // ["__proto__"]
 */
export function dict<V>(entries: Iterable<readonly [string, V]> = []): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  for (const [key, value] of entries) out[key] = value;
  return out;
}

/**
 * The value a record holds under its own key, never an inherited one.
 *
 * @example
 * own({ read_file: 1 }, "toString") // undefined
 */
export function own<V>(record: Readonly<Record<string, V>> | undefined | null, key: string): V | undefined {
  return record != null && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * A model name as the API and KV keys accept it.
 *
 * @example
 * MODEL_NAME_PATTERN.test("claude-opus-4-6") // true
 */
export const MODEL_NAME_PATTERN = /^[A-Za-z0-9._:/@+-]{1,128}$/;

/**
 * Names no row or alias may take: `__proto__` is the one name a plain
 * object cannot hold as its own key, so a seed file, a JSON listing or a
 * parsed record would silently drop it.
 *
 * @example
 * RESERVED_MODEL_NAMES.includes("__proto__") // true
 */
export const RESERVED_MODEL_NAMES: readonly string[] = ["__proto__"];

/** A session id an agent may send: `[A-Za-z0-9._:-]{1,128}`. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** A tool name an agent may send: `[A-Za-z0-9._:/-]{1,64}`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9._:/-]{1,64}$/;

/**
 * The prefix of the tool name the proxy records an observed decision under
 * (docs/design/proxy.md §6): nothing was stubbed, so its verdict and savings
 * rows are what the gate would have done, never pooled with enacted ones;
 * the savings report marks them `observed`.
 *
 * @example
 * "observed:Read".startsWith(OBSERVED_TOOL_PREFIX) // true
 */
export const OBSERVED_TOOL_PREFIX = "observed:";

/** An agent family id a request may name (src/learning/family-defaults.json): `[a-z0-9._-]{1,64}`, lower case. */
export const AGENT_ID_PATTERN = /^[a-z0-9._-]{1,64}$/;

/** The largest call index a request may send: far past any session the corpus holds. */
export const MAX_CALL_INDEX = 1_000_000;
