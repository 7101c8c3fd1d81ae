import type { ScheduledChange, ScheduledPriceRates } from "./types";

/**
 * Prices on a schedule: a row's `scheduled` changes, each the prices that
 * change at its instant, turned into the rows in force from each instant on.
 * The store builds a row's schedule once, when it fills its cache; a request
 * then only picks the epoch in force at its `now`. Pure: the caller reads the
 * clock and passes it in.
 */

/** The prices in force from `from` (ms since the epoch) until the next epoch's. */
export interface PriceEpoch<Row> {
  /** -Infinity for the row's own prices. */
  from: number;
  /** The change's instant as written; null for the row's own prices. */
  effective_at: string | null;
  /** The row with every change up to this one applied (the row itself for the first epoch). */
  row: Row;
}

/** A row's epochs, oldest first; the first is the row itself. */
export type PriceSchedule<Row> = readonly PriceEpoch<Row>[];

// The price fields a change may carry, outside the tier.
const CHANGE_FIELDS = ["input", "output", "cache_read", "cache_write", "cache_write_1h"] as const;

/**
 * The row's epochs: its own prices, then each change applied on top of all
 * the changes before it, a price the change leaves out staying as it was
 * (a change of `long_context` overlays the tier field by field). Each later
 * epoch's row is frozen and carries no `scheduled` of its own. Changes are
 * taken in the order given: the schema keeps them sorted.
 *
 * @example
 * priceSchedule({ input: 0.75, output: 3.75, scheduled: [{ effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5 }] })
 * // [{ from: -Infinity, effective_at: null, row }, { from: 1798761600000, effective_at: "2027-01-01T00:00:00Z", row: { input: 1.5, output: 7.5 } }]
 */
export function priceSchedule<Row extends ScheduledPriceRates>(row: Row): PriceSchedule<Row> {
  const epochs: PriceEpoch<Row>[] = [{ from: -Infinity, effective_at: null, row }];
  let current: Row = row;
  for (const change of row.scheduled ?? []) {
    current = applyChange(current, change);
    epochs.push({ from: Date.parse(change.effective_at), effective_at: change.effective_at, row: current });
  }
  return Object.freeze(epochs);
}

/**
 * The epoch in force at `now` (ms): the last one that began at or before it,
 * so a change takes effect at its instant exactly.
 *
 * @example
 * priceInForce(schedule, Date.parse("2026-12-31T23:59:59.999Z")).row.input // 0.75
 * priceInForce(schedule, Date.parse("2027-01-01T00:00:00Z")).row.input // 1.5
 */
export function priceInForce<Row>(schedule: PriceSchedule<Row>, now: number): PriceEpoch<Row> {
  // Schedules are short (the schema caps them): a scan from the newest is cheapest.
  for (let i = schedule.length - 1; i > 0; i--) {
    const epoch = schedule[i]!;
    if (epoch.from <= now) return epoch;
  }
  return schedule[0]!;
}

/**
 * The changes still to come at `now`, oldest first.
 *
 * @example
 * upcomingChanges(row, Date.parse("2026-12-02T00:00:00Z")) // [{ effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5 }]
 */
export function upcomingChanges(row: ScheduledPriceRates, now: number): ScheduledChange[] {
  return (row.scheduled ?? []).filter((change) => Date.parse(change.effective_at) > now);
}

function applyChange<Row extends ScheduledPriceRates>(row: Row, change: ScheduledChange): Row {
  const { scheduled: _scheduled, ...rest } = row;
  const next: Record<string, unknown> = { ...rest };
  for (const field of CHANGE_FIELDS) if (change[field] !== undefined) next[field] = change[field];
  if (change.long_context !== undefined)
    next.long_context = Object.freeze({ ...row.long_context, ...change.long_context });
  return Object.freeze(next) as Row;
}
