/**
 * Records keyed by names that come from requests: tool, model, session and
 * tenant names. A plain object answers `tools["constructor"]` with
 * Object.prototype's function and drops or misreads `"__proto__"`, so a tool
 * named after a built-in property once answered 500 for its whole tenant.
 * These records have no prototype, and every lookup reads own keys only.
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
