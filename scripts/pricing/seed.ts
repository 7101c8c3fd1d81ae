/**
 * The seed file and KV, as plain data: the row-by-row diff, the write plan
 * and the export. No I/O here; cli.ts reads files and drives wrangler.
 * Validation is in ./validate.ts.
 */
import { describeIssues } from "../../src/gate/issues";
import { aliasKey, pricingKey } from "../../src/storage/rules/keys";
import { PricingRowSchema, storedValue, type PricingRow, type PricingSeed } from "../../src/storage/schemas/schema";
import { canonicalJson } from "../../src/storage/write/canonical";

export { scheduleWarnings, validateSeed, type Verdict } from "./validate";

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
