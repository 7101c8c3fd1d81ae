import type { ErrorIssue } from "../../http";
import { PRICE_FIELDS } from "../rules";
import { type PricingRow } from "../schemas";

// A PUT replaces the whole row, so leaving a field out removes it: every
// field is named when it goes (a price, a lifecycle date, a schedule, or
// where the figures come from). Aliases say so themselves: their keys go too.
const UNWATCHED = new Set(["aliases"]);

const HOW = "a PUT replaces the whole row; PATCH /v1/admin/pricing/{model} changes only the fields it names";

/**
 * Warnings (not errors) naming each field the stored row has and the new
 * row leaves out (prices, lifecycle, schedule, source and source_note), a
 * long-context tier's prices included.
 *
 * @example
 * droppedFieldWarnings({ input: 1.25, output: 10, cache_write: 1.25 }, { input: 1.5, output: 10 })
 * // [{ path: "cache_write", message: "is dropped: the stored row has 1.25 and this write has none (a PUT replaces …)" }]
 */
export function droppedFieldWarnings(before: PricingRow | null, after: PricingRow): ErrorIssue[] {
  if (before === null) return [];
  const warnings: ErrorIssue[] = [];
  for (const field of Object.keys(before) as (keyof PricingRow)[]) {
    if (!UNWATCHED.has(field) && before[field] !== undefined && after[field] === undefined)
      warnings.push(dropped(field, before[field]));
  }
  if (before.long_context !== undefined && after.long_context !== undefined) {
    for (const field of PRICE_FIELDS) {
      const had = before.long_context[field];
      if (had !== undefined && after.long_context[field] === undefined)
        warnings.push(dropped(`long_context.${field}`, had));
    }
  }
  return warnings;
}

function dropped(path: string, had: unknown): ErrorIssue {
  const shown = typeof had === "object" ? "one" : JSON.stringify(had);
  return { path, message: `is dropped: the stored row has ${shown} and this write has none (${HOW})` };
}
