/**
 * The seed file and KV, as plain data: validation, the row-by-row diff and
 * the write plan. No I/O here; cli.ts reads files and drives wrangler.
 * Validation is the worker's own: PricingSeedSchema and PricingRowSchema.
 */
import { describeIssues, fieldIssues } from "../../src/gate/issues";
import { aliasKey, pricingKey } from "../../src/store/keys";
import {
  PricingRowSchema,
  PricingSeedSchema,
  storedValue,
  type PricingRow,
  type PricingSeed,
} from "../../src/store/schema";
import { canonicalJson } from "../../src/writes/canonical";
import { cacheGapWarnings, cacheRatioWarnings } from "../../src/writes/ratios";
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
export interface KvSnapshot {
  rows: Map<string, string>;
  aliases: Map<string, string>;
}

/** One field that differs. `from`/`to` are undefined when the field is absent on that side. */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** How one model differs between the seed and KV. */
export type RowDiff =
  | { model: string; kind: "added"; to: PricingRow }
  | { model: string; kind: "changed"; from: unknown; to: PricingRow; fields: FieldChange[] }
  | { model: string; kind: "invalid_in_kv"; from: unknown; to: PricingRow; problem: string }
  | { model: string; kind: "only_in_kv"; from: unknown };

/** How one alias key differs: `to` null means the key would be removed. */
export interface AliasDiff {
  alias: string;
  from: string | null;
  to: string | null;
}

/** The seed against KV, row by row and alias by alias; empty lists when they agree. */
export interface SeedDiff {
  rows: RowDiff[];
  aliases: AliasDiff[];
}

/**
 * Compares the seed with KV. Alias keys follow the rows: each alias a seed
 * row lists should point to it; an alias key that points to a seed model
 * which no longer lists it is stale.
 *
 * @example
 * diffSeed(seed, { rows: new Map([["gpt-5", '{"input":1,"output":8}']]), aliases: new Map() }).rows
 * // [{ model: "gpt-5", kind: "changed", fields: [{ field: "input", from: 1, to: 1.25 }, ...] }]
 */
export function diffSeed(seed: PricingSeed, kv: KvSnapshot): SeedDiff {
  const rows: RowDiff[] = [];
  for (const [model, row] of Object.entries(seed.models)) {
    const text = kv.rows.get(model);
    if (text === undefined) {
      rows.push({ model, kind: "added", to: row });
      continue;
    }
    const from = storedValue(text);
    const stored = PricingRowSchema.safeParse(from);
    if (!stored.success)
      rows.push({ model, kind: "invalid_in_kv", from, to: row, problem: describeIssues(stored.error) });
    else if (canonicalJson(stored.data) !== canonicalJson(row))
      rows.push({ model, kind: "changed", from, to: row, fields: fieldChanges(stored.data, row) });
  }
  for (const [model, text] of kv.rows) {
    if (!Object.hasOwn(seed.models, model)) rows.push({ model, kind: "only_in_kv", from: storedValue(text) });
  }

  const aliases: AliasDiff[] = [];
  const wanted = new Map<string, string>();
  for (const [model, row] of Object.entries(seed.models))
    for (const alias of row.aliases ?? []) wanted.set(alias, model);
  for (const [alias, model] of wanted) {
    const from = kv.aliases.get(alias)?.trim() ?? null;
    if (from !== model) aliases.push({ alias, from, to: model });
  }
  for (const [alias, target] of kv.aliases) {
    if (!wanted.has(alias) && Object.hasOwn(seed.models, target.trim()))
      aliases.push({ alias, from: target.trim(), to: null });
  }
  return {
    rows: rows.sort((a, b) => a.model.localeCompare(b.model)),
    aliases: aliases.sort((a, b) => a.alias.localeCompare(b.alias)),
  };
}

/**
 * The fields that differ between two rows, `long_context` field by field.
 *
 * @example
 * fieldChanges({ input: 1, output: 8 }, { input: 1.25, output: 8 }) // [{ field: "input", from: 1, to: 1.25 }]
 */
export function fieldChanges(from: Record<string, unknown>, to: Record<string, unknown>, prefix = ""): FieldChange[] {
  const changes: FieldChange[] = [];
  const fields = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort();
  for (const field of fields) {
    const a = from[field];
    const b = to[field];
    if (field === "long_context" && isObject(a) && isObject(b))
      changes.push(...fieldChanges(a, b, `${prefix}${field}.`));
    else if (canonicalJson(a) !== canonicalJson(b)) changes.push({ field: `${prefix}${field}`, from: a, to: b });
  }
  return changes;
}

/** The key writes that bring KV to the seed: only what changed, and deletions only when pruning. */
export interface SeedPlan {
  puts: { key: string; value: string }[];
  deletes: string[];
  /** The rows written or deleted, for history: before (as stored) and after (null: deleted). */
  changes: { model: string; before: unknown; after: PricingRow | null }[];
  /** With `missingOnly`: the rows and aliases KV holds otherwise than the seed, left as they are. */
  kept: string[];
}

/**
 * Turns a diff into KV writes. Rows only in KV stay unless `prune` is set;
 * then they go, with the alias keys that point to them. With `missingOnly`
 * (what `npm run dev` seeds) only rows and aliases KV lacks are written: a
 * row or alias KV holds otherwise, as a price changed through the admin API,
 * stays and is named in `kept`.
 *
 * @example
 * planSeed(diffSeed(seed, snapshot), snapshot, { prune: false }).puts // [{ key: "pricing:gpt-5", value: "{...}" }]
 * planSeed(diffSeed(seed, snapshot), snapshot, { prune: false, missingOnly: true }).kept // ["gpt-5"]
 */
export function planSeed(diff: SeedDiff, kv: KvSnapshot, options: { prune: boolean; missingOnly?: boolean }): SeedPlan {
  const plan: SeedPlan = { puts: [], deletes: [], changes: [], kept: [] };
  for (const row of diff.rows) {
    if (options.missingOnly === true && row.kind !== "added") {
      plan.kept.push(row.model);
      continue;
    }
    if (row.kind === "only_in_kv") {
      if (!options.prune) continue;
      plan.deletes.push(pricingKey(row.model));
      plan.changes.push({ model: row.model, before: row.from, after: null });
      for (const [alias, target] of kv.aliases) if (target.trim() === row.model) plan.deletes.push(aliasKey(alias));
      continue;
    }
    plan.puts.push({ key: pricingKey(row.model), value: JSON.stringify(row.to) });
    plan.changes.push({ model: row.model, before: row.kind === "added" ? null : row.from, after: row.to });
  }
  for (const alias of diff.aliases) {
    if (options.missingOnly === true && alias.from !== null) {
      plan.kept.push(`alias ${alias.alias}`);
      continue;
    }
    if (alias.to === null) plan.deletes.push(aliasKey(alias.alias));
    else plan.puts.push({ key: aliasKey(alias.alias), value: alias.to });
  }
  plan.deletes = [...new Set(plan.deletes)];
  return plan;
}

/**
 * KV's rows back in the seed file's shape; rows that do not validate are
 * left out and named.
 *
 * @example
 * exportSeed(snapshot) // { seed: { models: { "gpt-5": {...} } }, invalid: [] }
 */
export function exportSeed(kv: KvSnapshot): { seed: PricingSeed; invalid: { model: string; problem: string }[] } {
  const models: [string, PricingRow][] = [];
  const invalid: { model: string; problem: string }[] = [];
  for (const model of [...kv.rows.keys()].sort()) {
    const parsed = PricingRowSchema.safeParse(storedValue(kv.rows.get(model) as string));
    if (parsed.success) models.push([model, parsed.data]);
    else invalid.push({ model, problem: describeIssues(parsed.error) });
  }
  // fromEntries defines own keys, whatever the name.
  return { seed: { models: Object.fromEntries(models) }, invalid };
}

/**
 * The diff as a reviewer reads it: one line per row or alias, changed fields
 * with their old and new values.
 *
 * @example
 * formatDiff(diff) // ["~ gpt-5: input 1 → 1.25", "+ gpt-5-mini (new)"]
 */
export function formatDiff(diff: SeedDiff): string[] {
  const show = (value: unknown) => (value === undefined ? "(absent)" : JSON.stringify(value));
  const lines = diff.rows.map((row) => {
    switch (row.kind) {
      case "added":
        return `+ ${row.model} (new): ${JSON.stringify(row.to)}`;
      case "changed":
        return `~ ${row.model}: ${row.fields.map((change) => `${change.field} ${show(change.from)} → ${show(change.to)}`).join(", ")}`;
      case "invalid_in_kv":
        return `! ${row.model}: the KV row is invalid (${row.problem}); the seed's replaces it`;
      case "only_in_kv":
        return `- ${row.model}: in KV, not in the seed (kept unless --prune)`;
    }
  });
  for (const alias of diff.aliases) {
    lines.push(
      alias.to === null
        ? `- alias ${alias.alias} → ${alias.from} (stale)`
        : `${alias.from === null ? "+" : "~"} alias ${alias.alias} → ${alias.to}${alias.from === null ? "" : ` (was ${alias.from})`}`,
    );
  }
  return lines;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
