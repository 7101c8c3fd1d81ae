/**
 * LiteLLM's model_prices_and_context_window.json → our rows. LiteLLM prices
 * in USD per token; rows are USD per million tokens. Pure: cli.ts reads and
 * writes the files.
 */
import { describeIssues } from "../../src/gate/issues";
import { PricingRowSchema, type PricingRow, type PricingSeed } from "../../src/store/schema";

/** Where imported rows say they come from, unless --source says otherwise. */
export const LITELLM_SOURCE = "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json";

/** LiteLLM's per-token fields and the row fields they become. */
const BASE_FIELDS = {
  input_cost_per_token: "input",
  output_cost_per_token: "output",
  cache_read_input_token_cost: "cache_read",
  cache_creation_input_token_cost: "cache_write",
  cache_creation_input_token_cost_above_1hr: "cache_write_1h",
} as const;

// `<base field>_above_<N>k_tokens`: the long-context tier's price of that field.
const TIER_FIELD = /^(.+)_above_(\d+)k_tokens$/;

// Modes whose tool outputs an agent carries; embeddings, images and audio price other things.
const TEXT_MODES = new Set(["chat", "completion", "responses"]);

/** Which entries to import: named models, or every model of a provider. */
export type Selection = { models: string[] } | { provider: string };

/** Rows converted, and what was skipped or adjusted, for the reviewer. */
export interface ImportResult {
  seed: PricingSeed;
  notes: string[];
}

/**
 * Converts the selected LiteLLM entries into a seed file. An entry without
 * both an input and an output price (embeddings, images) is skipped with a
 * note; a named model LiteLLM does not have is an error.
 *
 * @example
 * importLitellm({ "gpt-5": { input_cost_per_token: 1.25e-6, output_cost_per_token: 1e-5, litellm_provider: "openai" } }, { models: ["gpt-5"] })
 * // { seed: { models: { "gpt-5": { input: 1.25, output: 10, provider: "openai", source: LITELLM_SOURCE } } }, notes: [] }
 */
export function importLitellm(data: unknown, selection: Selection, source: string = LITELLM_SOURCE): ImportResult {
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new Error("the LiteLLM file is not a JSON object of models");
  const entries = data as Record<string, unknown>;
  const notes: string[] = [];
  let names: string[];
  if ("models" in selection) {
    const missing = selection.models.filter((name) => !isEntry(entries[name]));
    if (missing.length > 0) throw new Error(`not in the LiteLLM file: ${missing.join(", ")}`);
    names = selection.models;
  } else {
    const wanted = selection.provider.toLowerCase();
    names = Object.keys(entries)
      .filter((name) => name !== "sample_spec" && isEntry(entries[name]))
      .filter((name) => String((entries[name] as Record<string, unknown>).litellm_provider ?? "").toLowerCase() === wanted)
      .sort();
    if (names.length === 0) throw new Error(`no model in the LiteLLM file has litellm_provider "${selection.provider}"`);
  }

  const models: Record<string, PricingRow> = {};
  for (const name of names) {
    const converted = convertEntry(name, entries[name] as Record<string, unknown>, source);
    notes.push(...converted.notes);
    if (converted.row !== null) models[name] = converted.row;
  }
  return { seed: { models }, notes };
}

/**
 * One LiteLLM entry as a row, or null (with a note saying why) when it
 * cannot price a gate decision.
 *
 * @example
 * convertEntry("claude-x", { input_cost_per_token: 3e-6, output_cost_per_token: 1.5e-5 }, LITELLM_SOURCE).row // { input: 3, output: 15, ... }
 */
export function convertEntry(name: string, entry: Record<string, unknown>, source: string): { row: PricingRow | null; notes: string[] } {
  const notes: string[] = [];
  const row: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(BASE_FIELDS)) {
    const price = perMillion(entry[from]);
    if (price !== undefined) row[to] = price;
  }
  if (typeof entry.mode === "string" && !TEXT_MODES.has(entry.mode)) {
    return { row: null, notes: [`${name}: skipped, mode ${entry.mode} is not a text-generation model`] };
  }
  if (row.input === undefined || row.output === undefined) {
    return { row: null, notes: [`${name}: skipped, it has no input_cost_per_token and output_cost_per_token (mode ${String(entry.mode ?? "unknown")})`] };
  }

  const tiers = new Map<number, Record<string, unknown>>();
  for (const [field, value] of Object.entries(entry)) {
    const match = TIER_FIELD.exec(field);
    const target = match === null ? undefined : BASE_FIELDS[match[1] as keyof typeof BASE_FIELDS];
    const price = perMillion(value);
    if (match === null || target === undefined || price === undefined) continue;
    const threshold = Number(match[2]) * 1000;
    tiers.set(threshold, { ...(tiers.get(threshold) ?? {}), [target]: price });
  }
  const thresholds = [...tiers.keys()].sort((a, b) => a - b);
  const first = thresholds[0];
  if (first !== undefined) {
    row.long_context = { threshold_tokens: first, ...tiers.get(first) };
    if (thresholds.length > 1) notes.push(`${name}: LiteLLM has tiers above ${thresholds.join(", ")} tokens; only the first (${first}) is kept`);
  }
  if (typeof entry.litellm_provider === "string" && entry.litellm_provider !== "") row.provider = entry.litellm_provider.slice(0, 64);
  row.source = source;

  const parsed = PricingRowSchema.safeParse(row);
  if (!parsed.success) return { row: null, notes: [`${name}: skipped, the converted row is invalid: ${describeIssues(parsed.error)}`] };
  return { row: parsed.data, notes };
}

/** USD per token → USD per million tokens, without float noise (1.5e-5 → 15, not 15.000000000000002). */
export function perMillion(value: unknown): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return Number((value * 1_000_000).toPrecision(12));
}

function isEntry(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
