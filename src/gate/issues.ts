/**
 * Validation issues as plain data: one walker turns a schema's issues into
 * `{ path, message }` pairs, one per field (an unknown key is named on its
 * own), for the API's error shape and for the one-line problems of stored
 * data. Structural on purpose: the core does not depend on zod.
 */

/** One problem with one field; `path` is dotted ("items.3.horizon"), "" for the value itself. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** The parts of a zod issue read here. */
interface SchemaIssue {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
  readonly issues?: readonly { readonly message: string }[];
}

/**
 * One issue per field: unknown keys one by one, a bad record key by what is
 * wrong with it.
 *
 * @example
 * fieldIssues(error) // [{ path: "horizon", message: "must be an integer ≥ 0" }, { path: "horizn", message: "is not a known field" }]
 */
export function fieldIssues(
  error: { readonly issues: readonly SchemaIssue[] },
  prefix: readonly (string | number)[] = [],
): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const base = [...prefix, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))];
    if (issue.code === "unrecognized_keys" && issue.keys !== undefined) {
      return issue.keys.map((key) => ({ path: [...base, key].join("."), message: "is not a known field" }));
    }
    const message = issue.code === "invalid_key" ? (issue.issues?.[0]?.message ?? issue.message) : issue.message;
    return [{ path: base.join("."), message }];
  });
}

/**
 * One line naming each failing field, for logs, reasons and the CLI
 * ("field: message; ..."); the API's own summary is `summarize` in http/.
 *
 * @example
 * describeIssues(error) // "input: must not be negative; cache_raed: is not a known field"
 */
export function describeIssues(
  error: { readonly issues: readonly SchemaIssue[] },
  prefix: readonly (string | number)[] = [],
): string {
  return fieldIssues(error, prefix)
    .map((issue) => `${issue.path === "" ? "" : `${issue.path}: `}${issue.message}`)
    .join("; ");
}
