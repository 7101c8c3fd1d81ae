/**
 * JSON Merge Patch (RFC 7386), pure: a patch's `null` removes a member, an
 * object merges into the target's member, anything else replaces it.
 * Members are defined, never assigned, so a key such as "__proto__" stays
 * a plain key (which the row's schema then refuses by name).
 *
 * @example
 * mergePatch({ input: 1.25, output: 10, cache_read: 0.125 }, { input: 1.5, cache_read: null })
 * // { input: 1.5, output: 10 }
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  const define = (key: string, value: unknown) =>
    Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
  if (isObject(target)) for (const [key, value] of Object.entries(target)) define(key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else define(key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
