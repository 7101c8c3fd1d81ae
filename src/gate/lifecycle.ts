import type { PriceRates, PricingLookup } from "./types";

/** A row's lifecycle fields: dates as YYYY-MM-DD, so they compare as strings. */
export interface LifecycleFields {
  deprecated_at?: string;
  retires_at?: string;
  replaced_by?: string;
}

/** Where a model stands on a given day. */
export type LifecycleStatus = "active" | "deprecated" | "retired";

/** What the answer says about the requested model's lifecycle. */
export interface LifecycleNote {
  /** The requested model's canonical name. */
  model: string;
  status: LifecycleStatus;
  deprecated_at: string | null;
  retires_at: string | null;
  replaced_by: string | null;
  /** True when the decision was priced at a replacement's row, as the provider bills a retired model. */
  priced_as_replacement: boolean;
  /** The models passed through, requested first: `["gemini-2.5-pro", "gemini-3.8-flash"]`. */
  chain: string[];
}

/** How many replacements in a row the gate follows before it gives up (and says so). */
export const MAX_REPLACEMENT_HOPS = 4;

/** One step of resolving a lookup chain: look up another model, or the answer. */
export type LifecycleStep<Row extends PriceRates> =
  | { kind: "follow"; model: string }
  | { kind: "done"; lookup: PricingLookup<Row>; lifecycle: LifecycleNote | null };

/**
 * Where a row stands on `today` (YYYY-MM-DD, UTC): retired from `retires_at`
 * on; deprecated from `deprecated_at` on, or as soon as a retirement date is
 * announced; else active. Plain string comparison: no date is parsed.
 *
 * @example
 * lifecycleStatus({ retires_at: "2026-12-01" }, "2026-11-30") // "deprecated"
 * lifecycleStatus({ retires_at: "2026-12-01" }, "2026-12-01") // "retired"
 */
export function lifecycleStatus(row: LifecycleFields, today: string): LifecycleStatus {
  if (row.retires_at !== undefined && row.retires_at <= today) return "retired";
  if (row.retires_at !== undefined || (row.deprecated_at !== undefined && row.deprecated_at <= today))
    return "deprecated";
  return "active";
}

/**
 * Applies the lifecycle rules to a chain of lookups: `chain[0]` is the
 * requested model's, each next one its predecessor's `replaced_by`. A
 * retired model is priced as its replacement (the provider bills that); a
 * retired model with no replacement, a replacement with no row, a loop or a
 * chain longer than MAX_REPLACEMENT_HOPS answers unpriced, saying why; a
 * replacement that cannot be read is unavailable. When the next lookup is
 * needed, the step says which model to look up: the caller does the I/O and
 * calls again with it appended. Pure: `today` comes from the caller.
 *
 * @example
 * resolveLifecycle([{ status: "priced", canonical: "gemini-2.5-pro", row: { input: 1.25, output: 10, retires_at: "2026-12-01", replaced_by: "gemini-3.8-flash" } }], "2026-12-02")
 * // { kind: "follow", model: "gemini-3.8-flash" }
 */
export function resolveLifecycle<Row extends PriceRates & LifecycleFields>(
  chain: readonly PricingLookup<Row>[],
  today: string,
): LifecycleStep<Row> {
  const first = chain[0];
  if (first === undefined) throw new Error("resolveLifecycle needs the requested model's lookup");
  if (first.status !== "priced") return { kind: "done", lookup: first, lifecycle: null };
  const { row } = first;
  // The common case, at the cost of two property reads.
  if (row.retires_at === undefined && row.deprecated_at === undefined)
    return { kind: "done", lookup: first, lifecycle: null };

  const names = [first.canonical];
  const note = (priced: boolean): LifecycleNote => ({
    model: first.canonical,
    status: lifecycleStatus(row, today),
    deprecated_at: row.deprecated_at ?? null,
    retires_at: row.retires_at ?? null,
    replaced_by: row.replaced_by ?? null,
    priced_as_replacement: priced,
    chain: [...names],
  });
  const unpriced = (detail: string): LifecycleStep<Row> => ({
    kind: "done",
    lookup: { status: "unpriced", detail },
    lifecycle: note(false),
  });

  let current = first;
  for (let hop = 0; ; hop += 1) {
    const retiresAt = current.row.retires_at;
    if (retiresAt === undefined || retiresAt > today)
      return { kind: "done", lookup: current, lifecycle: note(hop > 0) };
    const next = current.row.replaced_by;
    const retired = `${current.canonical} retired on ${retiresAt}`;
    if (next === undefined) return unpriced(`${retired} and names no replacement`);
    if (names.includes(next)) return unpriced(`${retired}; its replacements loop (${[...names, next].join(" → ")})`);
    if (hop >= MAX_REPLACEMENT_HOPS)
      return unpriced(
        `${retired}; its replacement chain is longer than ${MAX_REPLACEMENT_HOPS} (${[...names, next].join(" → ")})`,
      );
    const lookup = chain[hop + 1];
    if (lookup === undefined) return { kind: "follow", model: next };
    if (lookup.status === "unavailable") {
      return {
        kind: "done",
        lookup: { status: "unavailable", detail: `${retired}; its replacement ${next}: ${lookup.detail}` },
        lifecycle: note(false),
      };
    }
    if (lookup.status === "unpriced") return unpriced(`${retired}; its replacement ${next} has no pricing row`);
    // An alias may lead back to a model already passed through.
    if (names.includes(lookup.canonical))
      return unpriced(`${retired}; its replacements loop (${[...names, lookup.canonical].join(" → ")})`);
    names.push(lookup.canonical);
    current = lookup;
  }
}
