/**
 * JSON with sorted keys, so two equal rows compare equal whatever their key
 * order.
 *
 * @example
 * canonicalJson({ output: 10, input: 1 }) === canonicalJson({ input: 1, output: 10 }) // true
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
