/**
 * How a request's model is priced, for every route that prices one: the
 * lifecycle walk to the row in force, and the answer's copy of that row.
 *
 * @module
 */
import { type LifecycleNote, type PricingLookup, type ResolvedFrom, resolveLifecycle } from "../../gate";
import { type PricingRead, pricesInForce } from "../../storage";
import type { PricingRow } from "../../storage/schemas";

/** A model's pricing after the lifecycle rules: a retired model's replacement, or why none prices it. */
export interface ResolvedPricing {
  /** A priced lookup's row is the prices in force when the request arrived. */
  read: PricingRead;
  lifecycle: LifecycleNote | null;
  /** The instant of the scheduled change in force; null for the row's own prices (or no row). */
  effectiveAt?: string | null;
}

/** What stands for pricing where none is needed: the pre-filter decided (a plan: no candidate passed it). */
export const NOT_LOOKED_UP: ResolvedPricing = {
  read: { lookup: { status: "unpriced" }, stale: null },
  lifecycle: null,
};

/**
 * Reads a model's pricing and applies the lifecycle rules: a retired model
 * is priced as its replacement, read the same way (and bounded by
 * MAX_REPLACEMENT_HOPS in the core). A stale read anywhere on the way makes
 * the answer stale. The row that prices is then taken at the prices in force
 * at `now` (its scheduled changes up to then applied).
 *
 * @example
 * await withLifecycle("gemini-2.5-pro", readOnce, "2026-12-02", Date.now()) // { read: { lookup: { canonical: "gemini-3.8-flash", ... } }, lifecycle: {...}, effectiveAt: null }
 */
export async function withLifecycle(
  model: string,
  read: (model: string) => Promise<PricingRead>,
  today: string,
  now: number,
): Promise<ResolvedPricing> {
  const first = await read(model);
  const chain: PricingLookup<PricingRow>[] = [first.lookup];
  let stale = first.stale;
  for (;;) {
    const step = resolveLifecycle(chain, today);
    if (step.kind === "done")
      return inForce(
        step.lookup === first.lookup ? first : { lookup: sentAs(step.lookup, first.lookup), stale },
        step.lifecycle,
        now,
      );
    const next = await read(step.model);
    stale ??= next.stale;
    chain.push(next.lookup);
  }
}

// A replacement's row prices a retired model: the answer still says how the name as sent was found.
function sentAs(lookup: PricingLookup<PricingRow>, first: PricingLookup<PricingRow>): PricingLookup<PricingRow> {
  if (lookup.status !== "priced" || first.status !== "priced") return lookup;
  return { ...lookup, resolved_from: first.resolved_from ?? "exact" };
}

function inForce(read: PricingRead, lifecycle: LifecycleNote | null, now: number): ResolvedPricing {
  const { lookup } = read;
  if (lookup.status !== "priced" || lookup.row.scheduled === undefined) return { read, lifecycle, effectiveAt: null };
  const epoch = pricesInForce(lookup.row, now);
  return { read: { ...read, lookup: { ...lookup, row: epoch.row } }, lifecycle, effectiveAt: epoch.effective_at };
}

/** The answer's copy of the row that priced it: the prices in force, and since when. */
export type PricedAs = Omit<
  PricingRow,
  "aliases" | "deprecated_at" | "retires_at" | "replaced_by" | "lifecycle_source" | "scheduled"
> & {
  model: string;
  resolved_from: ResolvedFrom;
  price_effective_at: string | null;
};

// Rows (and each epoch of a scheduled row) are frozen and replaced whole on
// each load: the answer's copy of a row is built once per row, not once per
// request.
// Keyed by the row, then by how the name was found (one of five).
const pricedAsCache = new WeakMap<PricingRow, Map<ResolvedFrom, PricedAs>>();

/**
 * The answer's copy of the row that priced a lookup (the prices in force),
 * with its canonical name and the instant of the scheduled change in force
 * (null: the row's own prices); null when no row did.
 *
 * @example
 * pricedAsOf({ status: "priced", row: { input: 5, output: 25 }, canonical: "claude-opus-4-6" }, null)
 * // { model: "claude-opus-4-6", input: 5, output: 25, resolved_from: "exact", price_effective_at: null }
 */
export function pricedAsOf(lookup: PricingLookup<PricingRow>, effectiveAt: string | null): PricedAs | null {
  if (lookup.status !== "priced") return null;
  const from = lookup.resolved_from ?? "exact";
  let byFrom = pricedAsCache.get(lookup.row);
  const held = byFrom?.get(from);
  if (held !== undefined && held.model === lookup.canonical && held.price_effective_at === effectiveAt) return held;
  // The row's prices and provenance; its names and lifecycle are the answer's
  // `lifecycle`; changes still to come are the row's (GET /v1/admin/pricing/{model}).
  const {
    aliases: _aliases,
    deprecated_at: _d,
    retires_at: _r,
    replaced_by: _b,
    lifecycle_source: _l,
    scheduled: _s,
    ...prices
  } = lookup.row;
  const pricedAs: PricedAs = Object.freeze({
    model: lookup.canonical,
    ...prices,
    resolved_from: from,
    price_effective_at: effectiveAt,
  });
  if (byFrom === undefined) {
    byFrom = new Map();
    pricedAsCache.set(lookup.row, byFrom);
  }
  byFrom.set(from, pricedAs);
  return pricedAs;
}

/**
 * The refusal of a model name two rows could price: the field, and the rows
 * it could mean, so the caller can send one of them (never a guess). Null
 * when the lookup is not ambiguous.
 *
 * @example
 * ambiguityIssue({ status: "unpriced", ambiguous: ["gpt-4o", "openai/gpt-4o"] }, "openrouter/openai/gpt-4o", "model_name")
 * // { path: "model_name", message: "is ambiguous: openrouter/openai/gpt-4o could name gpt-4o or openai/gpt-4o; send one of them" }
 */
export function ambiguityIssue(
  lookup: PricingLookup<PricingRow>,
  sent: string,
  path: string,
): { path: string; message: string } | null {
  if (lookup.status !== "unpriced" || lookup.ambiguous === undefined) return null;
  const names = lookup.ambiguous;
  const list =
    names.length === 2 ? `${names[0]} or ${names[1]}` : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  return { path, message: `is ambiguous: ${sent} could name ${list}; send one of them` };
}
