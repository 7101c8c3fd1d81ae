import { type LifecycleStatus, lifecycleStatus, type ScheduledChange, upcomingChanges } from "../../gate";
import type { CachePolicy } from "../../storage";
import { pricesInForce, readListing } from "../../storage";
import { PRICING_PREFIX } from "../../storage/rules";
import type { PricingRow } from "../../storage/schemas";
import { parseRow } from "../../storage/schemas";

/** Rows verified longer ago than this get a visible warning. */
export const STALE_AFTER_DAYS = 90;

/** A scheduled price change this close is flagged: check the row before it takes effect. */
export const CHANGE_SOON_DAYS = 7;

const DAY_MS = 86_400_000;

/** One line of the console's pricing table. */
export type TableRow =
  | {
      model: string;
      status: "valid";
      /** The prices in force now (the row's scheduled changes up to now applied): what the gate charges. */
      row: PricingRow;
      ageDays: number | null;
      stale: boolean;
      lifecycle: LifecycleStatus;
      /** Scheduled changes still to come, oldest first; `soon` when the next is within CHANGE_SOON_DAYS. */
      upcoming: ScheduledChange[];
      soon: boolean;
    }
  | { model: string; status: "invalid"; detail: string; raw: string };

/**
 * Every `pricing:` row in KV, sorted by provider and model, from the
 * isolate's held listing (storage/listing.ts): an anonymous page view costs
 * no KV operation while the listing is fresh. A row that does not parse is
 * listed as invalid with the reason, never dropped and never thrown; null
 * when KV cannot be listed and nothing is held.
 *
 * @example
 * const rows = await loadPricingTable(env.PRICING, Date.now(), cachePolicy(config), waitUntil);
 * rows?.[0] // { model: "claude-opus-4-6", status: "valid", row: {...}, ageDays: 3, stale: false }
 */
export async function loadPricingTable(
  kv: KVNamespace,
  now: number,
  policy: CachePolicy,
  waitUntil: WaitUntil,
): Promise<TableRow[] | null> {
  const read = await readListing(kv, PRICING_PREFIX, policy, waitUntil);
  if (read.kind === "miss") return null;
  return [...read.value].map(([model, text]) => toTableRow(model, text, now)).sort(byProviderThenModel);
}

type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * One stored row as the table shows it.
 *
 * @example
 * toTableRow("gpt-5", '{"input":1.25,"output":10,"verified_at":"2026-01-01"}', Date.parse("2026-11-30"))
 * // { model: "gpt-5", status: "valid", ageDays: 333, stale: true, lifecycle: "active", row: {...} }
 */
export function toTableRow(model: string, text: string, now: number): TableRow {
  const parsed = parseRow(model, text);
  if (parsed.kind !== "row") {
    const detail = parsed.kind === "invalid" ? parsed.detail : `${model} has no row`;
    return { model, status: "invalid", detail, raw: text.slice(0, 2_000) };
  }
  const ageDays = ageInDays(parsed.row.verified_at, now);
  const lifecycle = lifecycleStatus(parsed.row, new Date(now).toISOString().slice(0, 10));
  const upcoming = upcomingChanges(parsed.row, now);
  const next = upcoming[0];
  const soon = next !== undefined && Date.parse(next.effective_at) - now <= CHANGE_SOON_DAYS * DAY_MS;
  const row = pricesInForce(parsed.row, now).row;
  return {
    model,
    status: "valid",
    row,
    ageDays,
    stale: ageDays !== null && ageDays > STALE_AFTER_DAYS,
    lifecycle,
    upcoming,
    soon,
  };
}

/**
 * Whole days since a YYYY-MM-DD date (UTC), or null without one.
 *
 * @example
 * ageInDays("2026-11-01", Date.parse("2026-11-30T12:00:00Z")) // 29
 */
export function ageInDays(verifiedAt: string | undefined, now: number): number | null {
  if (verifiedAt === undefined) return null;
  const then = Date.parse(`${verifiedAt}T00:00:00Z`);
  if (Number.isNaN(then)) return null;
  return Math.max(0, Math.floor((now - then) / DAY_MS));
}

function byProviderThenModel(a: TableRow, b: TableRow): number {
  // Invalid rows first: they are what ops must look at.
  const provider = (row: TableRow) => (row.status === "valid" ? (row.row.provider ?? "~") : "");
  return provider(a).localeCompare(provider(b)) || a.model.localeCompare(b.model);
}
