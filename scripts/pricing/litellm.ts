/**
 * LiteLLM's model_prices_and_context_window.json → our rows. LiteLLM prices
 * in USD per token; rows are USD per million tokens. Pure: cli.ts reads and
 * writes the files.
 */
import { badPrice, convertEntry, foldDatedNames, modelNameOf, seedProvider } from "../../src/litellm/convert";
import type { PricingRow, PricingSeed } from "../../src/storage/schemas/schema";
import { priceWarnings } from "./checks";

export { convertEntry, perMillion, seedProvider } from "../../src/litellm/convert";

/** LiteLLM's price file on GitHub; `litellmSource` pins it to a commit. */
export const LITELLM_SOURCE = "https://github.com/BerriAI/litellm/blob/main/model_prices_and_context_window.json";

/** Which entries to import: named models, or every model of some providers (LiteLLM's or the seed's names). */
export type Selection = { models: string[] } | { providers: string[] };

/** Rows converted, what was skipped or adjusted, price warnings, and the providers covered. */
export interface ImportResult {
  seed: PricingSeed;
  notes: string[];
  warnings: string[];
  /** The seed's names of the providers the imported rows belong to: what `--prune` may touch. */
  providers: string[];
}

/**
 * Where imported rows say they come from: the file at a LiteLLM commit, or
 * else the local path it was read from.
 *
 * @example
 * litellmSource({ commit: "0123abc" }) // "https://github.com/BerriAI/litellm/blob/0123abc/model_prices_and_context_window.json"
 */
export function litellmSource(origin: { commit: string } | { path: string }): string {
  if ("commit" in origin) {
    if (!/^[0-9a-f]{7,40}$/i.test(origin.commit))
      throw new Error(`--commit must be a git commit hash, not ${origin.commit}`);
    return LITELLM_SOURCE.replace("/blob/main/", `/blob/${origin.commit}/`);
  }
  return new URL(`file://${origin.path.startsWith("/") ? "" : "/"}${origin.path}`).href;
}

/**
 * Converts the selected LiteLLM entries into a seed file. A dated snapshot
 * becomes an alias of its base model when it bills the same (the newest
 * snapshot names the row when the file has no base entry); one that bills
 * differently keeps its own row, with a note. An entry without both an
 * input and an output price is skipped with a note; a named model the file
 * does not have is an error.
 *
 * @example
 * importLitellm({ "gpt-5": { input_cost_per_token: 1.25e-6, output_cost_per_token: 1e-5, litellm_provider: "openai" },
 *   "gpt-5-2025-08-07": { input_cost_per_token: 1.25e-6, output_cost_per_token: 1e-5, litellm_provider: "openai" } },
 *   { providers: ["openai"] }, LITELLM_SOURCE).seed.models
 * // { "gpt-5": { input: 1.25, output: 10, aliases: ["gpt-5-2025-08-07"], provider: "openai", source: LITELLM_SOURCE } }
 */
export function importLitellm(data: unknown, selection: Selection, source: string): ImportResult {
  if (!isEntry(data)) throw new Error("the LiteLLM file is not a JSON object of models");
  const notes: string[] = [];
  const converted = new Map<string, PricingRow>();
  for (const [key, name] of selectEntries(data, selection, notes)) {
    const entry = data[key] as Record<string, unknown>;
    const bad = badPrice(entry);
    if (bad !== null) {
      notes.push(`${name}: skipped, ${bad}`);
      continue;
    }
    const result = convertEntry(name, entry, source);
    notes.push(...result.notes);
    if (result.row !== null) converted.set(name, result.row);
  }
  const models = foldDatedNames(converted, notes);
  const providers = [
    ...new Set(Object.values(models).flatMap((row) => (row.provider === undefined ? [] : [row.provider]))),
  ].sort();
  return { seed: { models }, notes, warnings: priceWarnings(models), providers };
}

// [file key, model name] pairs: a provider's entries lose their `provider/` prefix.
function selectEntries(data: Record<string, unknown>, selection: Selection, notes: string[]): [string, string][] {
  if ("models" in selection) {
    const missing = selection.models.filter(
      (name) => modelNameOf(name, "") === null || !Object.hasOwn(data, name) || !isEntry(data[name]),
    );
    if (missing.length > 0) throw new Error(`not in the LiteLLM file: ${missing.join(", ")}`);
    return selection.models.map((name) => [name, name]);
  }
  const wanted = new Set(selection.providers.map(seedProvider));
  const picked: [string, string][] = [];
  for (const key of Object.keys(data).sort()) {
    const entry = data[key];
    if (key === "sample_spec" || !isEntry(entry) || typeof entry.litellm_provider !== "string") continue;
    if (!wanted.has(seedProvider(entry.litellm_provider))) continue;
    const name = modelNameOf(key, entry.litellm_provider);
    if (name === null) notes.push(`${JSON.stringify(key).slice(0, 80)}: skipped, not a model name the gate accepts`);
    else picked.push([key, name]);
  }
  const found = new Set(
    picked.map(([key]) => seedProvider((data[key] as { litellm_provider: string }).litellm_provider)),
  );
  const absent = [...wanted].filter((provider) => !found.has(provider));
  if (absent.length > 0)
    throw new Error(`no model in the LiteLLM file has litellm_provider ${absent.map((p) => `"${p}"`).join(", ")}`);
  return picked;
}

function isEntry(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
