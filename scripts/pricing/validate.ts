/**
 * @module scripts/pricing/validate
 *
 * A seed file checked as the worker checks it (PricingSeedSchema and
 * PricingRowSchema), then for what a schema cannot know: cache ratios,
 * price sanity, the cache gap rule, stale or future `verified_at`, and
 * scheduled changes already past. Pure.
 *
 * @example
 * validateSeed(JSON.parse(text), new Date()).errors // [] when it is valid
 */
import { fieldIssues } from "../../src/gate/issues";
import {
  PricingRowSchema,
  PricingSeedSchema,
  type PricingRow,
  type PricingSeed,
} from "../../src/storage/schemas/schema";
import { cacheGapWarnings, cacheRatioWarnings } from "../../src/storage/write/ratios";
import { priceWarnings } from "./checks";

/** What validation found: errors fail it, warnings do not (unless --strict). */
export interface Verdict {
  seed: PricingSeed | null;
  errors: string[];
  warnings: string[];
}

/** A price a reviewer should look at twice, but that is not wrong. */
const STALE_AFTER_DAYS = 180;

/**
 * Checks a parsed seed file against the worker's schema (which refuses,
 * among others, a replacement without a row and unsorted scheduled changes),
 * then for what the schema cannot know: Anthropic cache ratios, output
 * cheaper than input, cache reads dearer than input, a row without
 * `cache_read` (the gap rule), a missing or old or future `verified_at`, and
 * a scheduled change already past (fold it into the row).
 *
 * @example
 * validateSeed(JSON.parse(text), new Date()).errors // ["models.gpt-5.input: input price must not be negative"]
 */
export function validateSeed(json: unknown, today: Date): Verdict {
  const parsed = PricingSeedSchema.safeParse(json);
  if (!parsed.success) {
    const errors = fieldIssues(parsed.error).map(
      (issue) => `${issue.path === "" ? "(file)" : issue.path}: ${issue.message}`,
    );
    // An error elsewhere must not hide what is worth a look in the rows that are valid.
    return { seed: null, errors, warnings: rowWarnings(validRows(json), today) };
  }
  return { seed: parsed.data, errors: [], warnings: rowWarnings(parsed.data.models, today) };
}

// The rows of a file that fails as a whole but whose rows parse one by one.
function validRows(json: unknown): Record<string, PricingRow> {
  const models = typeof json === "object" && json !== null ? (json as { models?: unknown }).models : undefined;
  if (typeof models !== "object" || models === null) return {};
  const rows: Record<string, PricingRow> = {};
  for (const [model, value] of Object.entries(models)) {
    const row = PricingRowSchema.safeParse(value);
    if (row.success) Object.defineProperty(rows, model, { value: row.data, enumerable: true });
  }
  return rows;
}

function rowWarnings(models: Readonly<Record<string, PricingRow>>, today: Date): string[] {
  const warnings: string[] = [];
  for (const [model, row] of Object.entries(models)) {
    const at = (field: string) => `models.${model}.${field}`;
    for (const warning of cacheRatioWarnings(model, row)) warnings.push(`${at(warning.path)}: ${warning.message}`);
    if (row.output < row.input)
      warnings.push(`${at("output")}: is below input (${row.output} < ${row.input}); output usually costs more`);
    if (row.cache_read !== undefined && row.cache_read > row.input)
      warnings.push(`${at("cache_read")}: is above input (${row.cache_read} > ${row.input})`);
    if (row.verified_at === undefined)
      warnings.push(`${at("verified_at")}: is missing; say when the price was checked`);
    else {
      const ageDays = (today.getTime() - Date.parse(row.verified_at)) / 86_400_000;
      if (ageDays < -1) warnings.push(`${at("verified_at")}: ${row.verified_at} is in the future`);
      else if (ageDays > STALE_AFTER_DAYS)
        warnings.push(
          `${at("verified_at")}: ${row.verified_at} is over ${STALE_AFTER_DAYS} days old; check the price again`,
        );
    }
    if (row.source === undefined) warnings.push(`${at("source")}: is missing; say where the price comes from`);
    for (const warning of cacheGapWarnings(row)) warnings.push(`${at(warning.path)}: ${warning.message}`);
    warnings.push(...scheduleWarnings(row, today).map((warning) => `${at(warning.path)}: ${warning.message}`));
    if (row.replaced_by !== undefined && row.retires_at === undefined)
      warnings.push(`${at("replaced_by")}: takes effect only with retires_at`);
  }
  warnings.push(...priceWarnings(models));
  return warnings;
}

/**
 * Warnings about a row's scheduled changes: one already in force belongs in
 * the row's own prices (the gate applies it, but the row reads wrong), and a
 * change that sets a price to what it already is changes nothing.
 *
 * @example
 * scheduleWarnings({ input: 1, output: 2, scheduled: [{ effective_at: "2026-01-01T00:00:00Z", input: 2 }] }, new Date("2026-12-01"))
 * // [{ path: "scheduled.0", message: "took effect on 2026-01-01T00:00:00Z; fold it into the row's prices and drop it" }]
 */
export function scheduleWarnings(row: PricingRow, today: Date): { path: string; message: string }[] {
  const warnings: { path: string; message: string }[] = [];
  (row.scheduled ?? []).forEach((change, index) => {
    if (Date.parse(change.effective_at) <= today.getTime()) {
      warnings.push({
        path: `scheduled.${index}`,
        message: `took effect on ${change.effective_at}; fold it into the row's prices and drop it`,
      });
    }
  });
  return warnings;
}

/** KV's pricing keys as read: row texts by model, alias targets by alias. */
