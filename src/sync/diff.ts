/**
 * The price source against KV: what a sync would propose. Pure: plain data
 * in, proposed changes (or why the source is refused) out.
 */

import { describeIssues, priceInForce, priceSchedule } from "../gate";
import { badPrice, convertEntry, foldDatedNames, isTextModel, modelNameOf, priceKey, seedProvider } from "../litellm";
import { PRICE_FIELDS } from "../storage/rules";
import { ModelNameSchema, type PricingRow, PricingRowSchema } from "../storage/schemas";

/** The most changes one sync may propose: more means a broken or hostile source. */
export const MAX_PROPOSED_CHANGES = 500;

/** One price field that differs; null where a side lacks it. */
export interface PriceChange {
  field: string;
  from: number | null;
  to: number | null;
}

/** What a sync proposes for one model: never applied until an admin approves it. */
export interface ProposedChange {
  model: string;
  kind: "changed" | "added" | "removed";
  /** KV's row when the sync ran (null for an added model). */
  before: PricingRow | null;
  /** The row an approval would write (null: an approval deletes the row). */
  after: PricingRow | null;
  fields: PriceChange[];
}

/** A source entry (or a model folded from several) that cannot become a valid row, and why. */
export interface SkippedEntry {
  model: string;
  reason: string;
}

/** KV's pricing rows and alias keys, as the sync read them. */
export interface KvPricing {
  rows: ReadonlyMap<string, PricingRow>;
  aliases: ReadonlyMap<string, string>;
}

/** The providers (seed names) a sync compares: those given, else every provider with a row in KV. */
export function trackedProviders(kv: KvPricing, configured: readonly string[] | undefined): Set<string> {
  if (configured !== undefined) return new Set(configured.map(seedProvider));
  return new Set(
    [...kv.rows.values()].flatMap((row) => (row.provider === undefined ? [] : [row.provider.toLowerCase()])),
  );
}

/**
 * Compares the source's text models of the tracked providers with KV: a row
 * priced differently is `changed` (its names, lifecycle and provider kept,
 * its prices and source replaced), a source model KV lacks is `added`, a
 * KV row of a tracked provider that the source lacks is `removed` (unless it
 * has `retires_at`: it still maps requests to its replacement). A price that
 * is not a finite non-negative number anywhere in those entries refuses the
 * whole source, as does a flood of changes. A row with scheduled changes is
 * compared at the prices in force at `now`; a change it proposes is today's
 * (the source has no dates): the changes already in force are folded into
 * the new prices, those still to come are kept. Every proposal is checked
 * against the row schema before it is returned: an entry that cannot become
 * a valid row (no input or output price, too many dated snapshots to list as
 * aliases, …) is `skipped` with the reason, never proposed.
 *
 * @example
 * diffSource(entries, { rows: new Map([["gpt-5", { input: 1, output: 10, provider: "openai" }]]), aliases: new Map() }, new Set(["openai"]), url)
 * // { ok: true, changes: [{ model: "gpt-5", kind: "changed", fields: [{ field: "input", from: 1, to: 1.25 }], ... }] }
 */
export function diffSource(
  entries: ReadonlyMap<string, Readonly<Record<string, unknown>>>,
  kv: KvPricing,
  providers: ReadonlySet<string>,
  source: string,
  now: number = Date.now(),
): { ok: true; changes: ProposedChange[]; skipped: SkippedEntry[] } | { ok: false; detail: string } {
  const converted = new Map<string, PricingRow>();
  const skipped: SkippedEntry[] = [];
  for (const [key, entry] of entries) {
    if (typeof entry.litellm_provider !== "string" || !providers.has(seedProvider(entry.litellm_provider))) continue;
    if (!isTextModel(entry)) continue;
    const name = modelNameOf(key, entry.litellm_provider);
    if (name === null) {
      skipped.push({
        model: key.slice(0, 128),
        reason: "it is not a model name the gate accepts ([A-Za-z0-9._:/@+-]{1,128}, not a reserved name)",
      });
      continue;
    }
    const bad = badPrice(entry);
    if (bad !== null)
      return { ok: false, detail: `the source's entry ${JSON.stringify(key.slice(0, 128))} is malformed: ${bad}` };
    const { row, notes } = convertEntry(name, entry, source);
    if (row !== null) converted.set(name, row);
    else skipped.push({ model: name, reason: (notes[0] ?? "it converts to no row").replace(`${name}: skipped, `, "") });
  }
  const file = foldDatedNames(converted, []);

  const found: ProposedChange[] = [];
  const unreadable = new Set(skipped.map((entry) => entry.model));
  for (const [model, before] of kv.rows) {
    if (before.provider === undefined || !providers.has(before.provider.toLowerCase())) continue;
    const proposed = Object.hasOwn(file, model) ? file[model] : undefined;
    if (proposed === undefined) {
      // A model the source lists but that was skipped is not gone from it: no removal is proposed.
      if (before.retires_at === undefined && !unreadable.has(model))
        found.push({ model, kind: "removed", before, after: null, fields: priceChanges(before, null) });
    } else if (priceKey(proposed) !== priceKey(inForce(before, now))) {
      const after = withPrices(before, proposed, source, now);
      found.push({ model, kind: "changed", before, after, fields: priceChanges(inForce(before, now), after) });
    }
  }
  for (const [model, proposed] of Object.entries(file)) {
    if (kv.rows.has(model) || kv.aliases.has(model)) continue;
    const aliases = (proposed.aliases ?? []).filter((alias) => !kv.aliases.has(alias) && !kv.rows.has(alias));
    const { aliases: _aliases, ...rest } = proposed;
    const after: PricingRow = aliases.length === 0 ? rest : { ...rest, aliases };
    found.push({ model, kind: "added", before: null, after, fields: priceChanges(null, after) });
  }
  const changes: ProposedChange[] = [];
  for (const change of found) {
    const problem = invalidProposal(change);
    if (problem === null) changes.push(change);
    else skipped.push({ model: change.model, reason: problem });
  }
  if (changes.length > MAX_PROPOSED_CHANGES) {
    return {
      ok: false,
      detail: `the source would propose ${changes.length} changes, over the limit of ${MAX_PROPOSED_CHANGES}`,
    };
  }
  return { ok: true, changes: changes.sort((a, b) => a.model.localeCompare(b.model)), skipped };
}

/**
 * Why a proposal could not be stored and approved, or null: its model must
 * be a name KV keys accept and its row one the row schema accepts, or the
 * admin API could neither apply nor reject it.
 *
 * @example
 * invalidProposal({ model: "gpt-5", kind: "added", before: null, after: { input: 1, output: 2, aliases: [...40 names] }, fields: [] })
 * // "the row it would write is invalid: aliases must hold at most 32 names"
 */
export function invalidProposal(change: ProposedChange): string | null {
  const name = ModelNameSchema.safeParse(change.model);
  if (!name.success) return `its name is invalid: ${describeIssues(name.error)}`;
  if (change.after === null) return null;
  const row = PricingRowSchema.safeParse(change.after);
  return row.success ? null : `the row it would write is invalid: ${describeIssues(row.error)}`;
}

/**
 * The price fields (long-context ones as `long_context.<field>`) that
 * differ between two rows; a missing row has none.
 *
 * @example
 * priceChanges({ input: 1, output: 10 }, { input: 1.25, output: 10 }) // [{ field: "input", from: 1, to: 1.25 }]
 */
export function priceChanges(before: PricingRow | null, after: PricingRow | null): PriceChange[] {
  const changes: PriceChange[] = [];
  const compare = (prefix: string, a: object | undefined, b: object | undefined, fields: readonly string[]) => {
    for (const field of fields) {
      const from = priceAt(a, field);
      const to = priceAt(b, field);
      if (from !== to) changes.push({ field: `${prefix}${field}`, from, to });
    }
  };
  compare("", before ?? undefined, after ?? undefined, PRICE_FIELDS);
  compare("long_context.", before?.long_context, after?.long_context, ["threshold_tokens", ...PRICE_FIELDS]);
  return changes;
}

// KV's row with the source's prices: names, provider and lifecycle stay; source and prices change;
// scheduled changes still to come stay, those in force are replaced by the source's prices.
function withPrices(before: PricingRow, proposed: PricingRow, source: string, now: number): PricingRow {
  // The note said how the old figures were checked: it does not vouch for the source's.
  const { long_context: _tier, verified_at: _verified, source_note: _note, scheduled, ...kept } = before;
  for (const field of PRICE_FIELDS) delete kept[field];
  const prices: Partial<PricingRow> = {};
  for (const field of PRICE_FIELDS) if (proposed[field] !== undefined) prices[field] = proposed[field];
  if (proposed.long_context !== undefined) prices.long_context = proposed.long_context;
  const upcoming = (scheduled ?? []).filter((change) => Date.parse(change.effective_at) > now);
  return { ...prices, ...kept, ...(upcoming.length === 0 ? {} : { scheduled: upcoming }), source } as PricingRow;
}

function inForce(row: PricingRow, now: number): PricingRow {
  return row.scheduled === undefined ? row : priceInForce(priceSchedule(row), now).row;
}

function priceAt(tier: object | undefined, field: string): number | null {
  const value = tier === undefined ? undefined : (tier as Record<string, unknown>)[field];
  return typeof value === "number" ? value : null;
}
