/**
 * Merging imported rows into an existing seed file: the seed's rows and
 * aliases are kept, what disagrees is reported, nothing is overwritten.
 * Pure: cli.ts reads and writes the files.
 */
import type { PricingRow, PricingSeed } from "../../src/storage/schemas/schema";
import { priceKey } from "../../src/litellm/convert";
import { fieldChanges } from "./seed";

/** What a merge did, and what it refused to do, for the reviewer. */
export interface MergeResult {
  seed: PricingSeed;
  added: string[];
  /** Aliases added to rows already in the seed, as `alias → model`. */
  aliased: string[];
  conflicts: string[];
  pruned: string[];
  /** Rows a prune would have removed but kept, with the reason. */
  kept: string[];
}

/** Pruning: off, or remove the seed's rows of these providers that the import lacks. */
export type Prune = false | { providers: readonly string[] };

/**
 * Adds the imported rows the seed lacks and the aliases no one claims. A row
 * the seed has at other prices, a model that is an alias of another row, and
 * an alias another row claims are conflicts: reported, and the seed's side is
 * kept. Pruning removes only rows of the named providers, never a row with
 * `retires_at` (it still maps requests to their replacement), and never a
 * row another row names as its replacement.
 *
 * @example
 * mergeSeeds({ models: { "gpt-5": { input: 1.25, output: 10 } } }, { models: { "gpt-5": { input: 1.5, output: 10 } } }, false).conflicts
 * // ["gpt-5: the file has input 1.25 → 1.5; the seed's row is kept"]
 */
export function mergeSeeds(existing: PricingSeed, imported: PricingSeed, prune: Prune): MergeResult {
  const models: Record<string, PricingRow> = { ...existing.models };
  const owner = new Map<string, string>();
  for (const [model, row] of Object.entries(models)) for (const alias of row.aliases ?? []) owner.set(alias, model);
  const result: MergeResult = {
    seed: { ...existing, models },
    added: [],
    aliased: [],
    conflicts: [],
    pruned: [],
    kept: [],
  };

  for (const [model, row] of Object.entries(imported.models)) {
    const aliasOf = owner.get(model);
    if (aliasOf !== undefined) {
      result.conflicts.push(`${model}: is an alias of ${aliasOf} in the seed; the file's row is not added`);
      continue;
    }
    const held = models[model];
    if (held !== undefined && priceKey(held) !== priceKey(row)) {
      const changes = fieldChanges(prices(held), prices(row)).map(
        (change) => `${change.field} ${show(change.from)} → ${show(change.to)}`,
      );
      result.conflicts.push(`${model}: the file has ${changes.join(", ")}; the seed's row is kept`);
      continue;
    }
    const claimed: string[] = [];
    for (const alias of row.aliases ?? []) {
      const other = models[alias] !== undefined ? alias : owner.get(alias);
      if (other === undefined) {
        claimed.push(alias);
        owner.set(alias, model);
      } else if (other !== model) {
        result.conflicts.push(
          `alias ${alias}: the file gives it to ${model}, the seed to ${other}; the seed's is kept`,
        );
      }
    }
    if (held === undefined) {
      const { aliases: _aliases, ...rest } = row;
      models[model] = claimed.length === 0 ? rest : { ...rest, aliases: claimed };
      result.added.push(model);
    } else if (claimed.length > 0) {
      models[model] = { ...held, aliases: [...(held.aliases ?? []), ...claimed] };
      result.aliased.push(...claimed.map((alias) => `${alias} → ${model}`));
    }
  }

  if (prune !== false) {
    const providers = new Set(prune.providers);
    for (const [model, row] of Object.entries(existing.models)) {
      if (imported.models[model] !== undefined || row.provider === undefined || !providers.has(row.provider)) continue;
      if (row.retires_at !== undefined) {
        result.kept.push(
          `${model}: not in the file, kept because it retires on ${row.retires_at} (it maps requests to its replacement)`,
        );
        continue;
      }
      // A replacement without a row would leave its retired models unpriced (and the seed invalid).
      const replaces = Object.keys(models).filter((other) => models[other]?.replaced_by === model);
      if (replaces.length > 0) {
        result.kept.push(`${model}: not in the file, kept because ${replaces.join(", ")} names it as a replacement`);
        continue;
      }
      delete models[model];
      result.pruned.push(model);
    }
  }
  return result;
}

function prices(row: PricingRow): Record<string, unknown> {
  // Scheduled changes are the seed's own: a merge keeps them with the row and never compares them.
  const {
    aliases: _a,
    provider: _p,
    source: _s,
    source_note: _n,
    verified_at: _v,
    deprecated_at: _d,
    retires_at: _r,
    replaced_by: _b,
    lifecycle_source: _l,
    scheduled: _c,
    ...rest
  } = row;
  return rest;
}

function show(value: unknown): string {
  return value === undefined ? "(absent)" : JSON.stringify(value);
}
