/**
 * @module replay/pricing
 *
 * The prices a replayed call is billed at: a pricing seed's rows (the shape
 * of pricing.seed.json), found as the gate finds a name (the core's
 * resolveModelName: canonical name, alias, the routing prefixes LiteLLM and
 * OpenRouter put in front, "openrouter/anthropic/claude-…", or a dated suffix,
 * "-20250929"), and taken as they were in force at the call's timestamp
 * (the row's `scheduled` changes, through the core's price schedule); a
 * call made after its model retired is priced at the replacement, as the
 * provider bills it (the core's lifecycle rules, on the call's UTC day).
 * Pure: the caller reads the seed.
 */

import type { PricingLookup, ScheduledPriceRates } from "../gate";
import {
  type LifecycleFields,
  type NameHit,
  type PriceSchedule,
  priceInForce,
  priceSchedule,
  resolveLifecycle,
  resolveModelName,
} from "../gate";

/** A seed row as replay reads it. */
export interface SeedRow extends ScheduledPriceRates, LifecycleFields {
  aliases?: string[];
  provider?: string;
}

/** A priced call: the row in force and the name it was found under. */
export interface PricedRow {
  canonical: string;
  row: SeedRow;
  /** The scheduled change in force, or null for the row's own prices. */
  effective_at: string | null;
}

/** Looks a model up at an instant (ms; null: the row's own prices). */
export type PriceLookup = (model: string, at: number | null) => PricedRow | null;

/**
 * A lookup over a seed's rows; each row's schedule is built once.
 *
 * @example
 * const prices = priceBook(seed.models);
 * prices("anthropic/claude-sonnet-4-5-20250929", null)?.canonical // "claude-sonnet-4-5"
 */
export function priceBook(models: Record<string, SeedRow>): PriceLookup {
  const names = new Map<string, string>();
  const schedules = new Map<string, PriceSchedule<SeedRow>>();
  for (const [name, row] of Object.entries(models)) {
    names.set(name.toLowerCase(), name);
    for (const alias of row.aliases ?? []) names.set(alias.toLowerCase(), name);
    schedules.set(name, priceSchedule(row));
  }
  // Names compare case-blind here (a transcript's spelling is not the seed's to fix); the
  // steps after the exact name are the core's, the gate's own (docs/design/economics.md §10).
  const find = (name: string): NameHit => {
    const canonical = names.get(name.toLowerCase());
    if (canonical === undefined) return null;
    return { canonical, via: canonical.toLowerCase() === name.toLowerCase() ? "exact" : "alias" };
  };
  const resolved = new Map<string, string | null>();
  const canonicalOf = (model: string): string | null => {
    const cached = resolved.get(model);
    if (cached !== undefined) return cached;
    const resolution = resolveModelName(model, find);
    // A name two rows could price prices neither: a replayed bill is never a guess.
    const found = resolution.kind === "found" ? resolution.canonical : null;
    resolved.set(model, found);
    return found;
  };
  const inForce = (canonical: string, at: number | null): PricedRow => {
    const schedule = schedules.get(canonical)!;
    const epoch = at === null ? schedule[0]! : priceInForce(schedule, at);
    return { canonical, row: epoch.row, effective_at: epoch.effective_at };
  };
  return (model, at) => {
    const canonical = canonicalOf(model);
    if (canonical === null) return null;
    const priced = inForce(canonical, at);
    if (at === null || priced.row.retires_at === undefined) return priced;
    const day = new Date(at).toISOString().slice(0, 10);
    const chain: PricingLookup<SeedRow>[] = [{ status: "priced", row: priced.row, canonical }];
    for (;;) {
      const step = resolveLifecycle(chain, day);
      if (step.kind === "done") return step.lookup.status === "priced" ? inForce(step.lookup.canonical, at) : null;
      const next = canonicalOf(step.model);
      chain.push(
        next === null ? { status: "unpriced" } : { status: "priced", row: inForce(next, at).row, canonical: next },
      );
    }
  };
}
