/**
 * A pricing row's limits and its checks across fields, free of zod: the
 * gate's startup path reads them (./checked.ts checks a stored row without
 * building ./schema.ts's schema, whose refinements call these same functions,
 * so the rules are written once).
 *
 * @module
 */
// The fields these checks read, as ./schema.ts's PricingRow and ScheduledChange have them.
type PricedFields = {
  long_context?: { threshold_tokens?: number; [price: string]: unknown };
  [field: string]: unknown;
};
type ChangeFields = PricedFields & { effective_at: string };
type RowFields = PricedFields & {
  deprecated_at?: string;
  retires_at?: string;
  prompt_cache?: boolean;
  scheduled?: readonly ChangeFields[];
};

/** Largest price a row may carry, in USD per million tokens: far above any list price, and it keeps every term finite. */
export const MAX_PRICE_USD_PER_MILLION = 1_000_000;

/** A row larger than this (as stored JSON) is refused rather than parsed. */
export const MAX_ROW_BYTES = 16 * 1024;

/** The price fields of a row or tier, for checks that walk them (test/storage/checked.test.ts holds them to the schema's). */
export const PRICE_FIELDS = ["input", "output", "cache_read", "cache_write", "cache_write_1h"] as const;

/** The most dated changes one row may carry. */
export const MAX_SCHEDULED_CHANGES = 32;

/** The protocols a row's source may use: a page ops can open, or the local file it was imported from; never javascript: or data:. */
export const SOURCE_URL_PROTOCOLS = /^(https?|file)$/;

/** The longest source URL, in UTF-16 units as zod counts. */
export const SOURCE_URL_MAX = 512;

// The prices a scheduled change may carry; at least one must be there.
const CHANGE_PRICES = ["input", "output", "cache_read", "cache_write", "cache_write_1h", "long_context"] as const;

/** One problem a refinement reports: where (from the checked value) and what. */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

/**
 * A scheduled change that prices nothing.
 *
 * @example
 * changeIssues({ effective_at: "2027-01-01T00:00:00Z" }) // [{ path: [], message: "must change at least one price (…)" }]
 */
export function changeIssues(change: Readonly<ChangeFields>): FieldIssue[] {
  const tierPriced = Object.values(change.long_context ?? {}).some((value) => value !== undefined);
  if (!CHANGE_PRICES.some((field) => field !== "long_context" && change[field] !== undefined) && !tierPriced) {
    return [{ path: [], message: `must change at least one price (${CHANGE_PRICES.join(", ")})` }];
  }
  return [];
}

/**
 * An alias listed twice.
 *
 * @example
 * aliasIssues(["a", "a"]) // [{ path: [1], message: "repeats a" }]
 */
export function aliasIssues(aliases: readonly string[]): FieldIssue[] {
  const issues: FieldIssue[] = [];
  aliases.forEach((alias, index) => {
    if (aliases.indexOf(alias) !== index) issues.push({ path: [index], message: `repeats ${alias}` });
  });
  return issues;
}

/**
 * What a row's fields say wrong together: its schedule (./schema.ts's
 * superRefine and ./checked.ts both ask), and a retirement before the
 * deprecation.
 *
 * @example
 * rowIssues({ input: 1, output: 1, deprecated_at: "2027-02-01", retires_at: "2027-01-01" }) // [{ path: ["retires_at"], … }]
 */
export function rowIssues(row: Readonly<RowFields>): FieldIssue[] {
  const issues = scheduleIssues(row);
  // ISO dates compare as strings: the gate relies on that, so they must be plain YYYY-MM-DD.
  if (row.deprecated_at !== undefined && row.retires_at !== undefined && row.deprecated_at > row.retires_at) {
    issues.push({ path: ["retires_at"], message: `must not be before deprecated_at (${row.deprecated_at})` });
  }
  return issues;
}

// Sorted, no instant twice (an offset names the same instant as its Z form),
// and a tier a change prices needs a threshold; a row without a prompt cache
// has no cache prices to state.
function scheduleIssues(row: Readonly<RowFields>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  let previous: { at: number; index: number } | null = null;
  let tier = row.long_context?.threshold_tokens;
  (row.scheduled ?? []).forEach((change, index) => {
    const at = Date.parse(change.effective_at);
    if (previous !== null && at === previous.at) {
      issues.push({
        path: ["scheduled", index, "effective_at"],
        message: `repeats the instant of scheduled.${previous.index}.effective_at`,
      });
    } else if (previous !== null && at < previous.at) {
      issues.push({
        path: ["scheduled", index, "effective_at"],
        message: `must be after scheduled.${previous.index}.effective_at: changes are sorted, oldest first`,
      });
    }
    previous = { at, index };
    tier = change.long_context?.threshold_tokens ?? tier;
    if (change.long_context !== undefined && tier === undefined) {
      issues.push({
        path: ["scheduled", index, "long_context", "threshold_tokens"],
        message: "is required: the row has no long_context tier before this change",
      });
    }
  });
  if (row.prompt_cache === false) {
    const places: [string, Record<string, unknown> | undefined][] = [
      ["", row],
      ["long_context.", row.long_context],
    ];
    (row.scheduled ?? []).forEach((change, index) =>
      places.push([`scheduled.${index}.`, change], [`scheduled.${index}.long_context.`, change.long_context]),
    );
    for (const [prefix, prices] of places) {
      for (const field of ["cache_read", "cache_write", "cache_write_1h"]) {
        if (prices?.[field] !== undefined) {
          issues.push({
            path: [
              ...prefix
                .split(".")
                .filter((p) => p !== "")
                .map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
              field,
            ],
            message: "must be left out: prompt_cache is false",
          });
        }
      }
    }
  }
  return issues;
}
