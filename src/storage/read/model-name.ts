/**
 * What a model name may be, as plain values: the pattern and the reserved
 * names. The row schema (./schema.ts) and the gate's compiled request
 * validator both read them here. Free of zod, so the gate's startup path
 * may import it.
 *
 * @module
 */

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
