/**
 * Price checks that hold for every provider: what a reviewer should look at
 * before a row reaches KV. Plain data in, warnings out; used by `validate`
 * and by `import-litellm`.
 */
import { PRICE_FIELDS } from "../../src/storage/rules";
import type { PricingRow } from "../../src/storage/schemas/schema";

type Tier = Partial<Record<(typeof PRICE_FIELDS)[number], number>>;

/**
 * Warnings, for every provider, about a cache write priced below the input
 * it stores, a long-context tier that lacks a price its base row has (the
 * gate would fall back to the cheaper base price), and a missing 1-hour
 * write where the provider sells one (some row of the same provider has it).
 *
 * @example
 * priceWarnings({ "gpt-x": { input: 2, output: 8, cache_write: 1, provider: "openai" } })
 * // ["models.gpt-x.cache_write: 1 is below input (2); a cache write costs at least the input it stores"]
 */
export function priceWarnings(models: Readonly<Record<string, PricingRow>>): string[] {
  const sellsHourWrites = new Set<string>();
  for (const row of Object.values(models)) {
    if (row.cache_write_1h !== undefined && row.provider !== undefined) sellsHourWrites.add(row.provider.toLowerCase());
  }
  const warnings: string[] = [];
  for (const [model, row] of Object.entries(models)) {
    const at = (field: string) => `models.${model}.${field}`;
    warnings.push(...writeBelowInput(row, row.input, at));
    const tier = row.long_context;
    if (tier !== undefined) {
      warnings.push(...writeBelowInput(tier, tier.input ?? row.input, (field) => at(`long_context.${field}`)));
      for (const field of PRICE_FIELDS) {
        if (row[field] !== undefined && tier[field] === undefined) {
          warnings.push(
            `${at(`long_context.${field}`)}: is missing while the base row has one (${row[field]}); ` +
              `above ${tier.threshold_tokens} tokens the gate would price it at the base price`,
          );
        }
      }
    }
    const provider = row.provider?.toLowerCase();
    if (provider !== undefined && sellsHourWrites.has(provider) && row.cache_write_1h === undefined) {
      warnings.push(
        `${at("cache_write_1h")}: is missing, but ${row.provider} sells 1-hour cache writes (other ${row.provider} rows have one)`,
      );
    }
  }
  return warnings;
}

function writeBelowInput(tier: Tier, input: number, at: (field: string) => string): string[] {
  const warnings: string[] = [];
  for (const field of ["cache_write", "cache_write_1h"] as const) {
    const price = tier[field];
    if (price !== undefined && price < input) {
      warnings.push(
        `${at(field)}: ${price} is below input (${input}); a cache write costs at least the input it stores`,
      );
    }
  }
  return warnings;
}
