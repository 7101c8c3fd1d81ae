/**
 * Reading LiteLLM's model_prices_and_context_window.json: one entry into one
 * pricing row, dated snapshots folded into their base rows. Pure; shared by
 * the ops CLI's import and the scheduled price sync.
 */
import { describeIssues } from "../gate";
import { MAX_PRICE_USD_PER_MILLION, MODEL_NAME_PATTERN, PRICE_FIELDS } from "../storage/rules";
import { type PricingRow, PricingRowSchema } from "../storage/schemas";

/** LiteLLM's per-token fields and the row fields they become. */
const BASE_FIELDS = {
  input_cost_per_token: "input",
  output_cost_per_token: "output",
  cache_read_input_token_cost: "cache_read",
  cache_creation_input_token_cost: "cache_write",
  cache_creation_input_token_cost_above_1hr: "cache_write_1h",
} as const;

/** LiteLLM provider names that the seed spells differently. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = { gemini: "google" };

// `<base field>_above_<N>k_tokens`: the long-context tier's price of that field.
const TIER_FIELD = /^(.+)_above_(\d+)k_tokens$/;

// A dated snapshot: `-20250805`, `-2025-08-07` or Vertex's `@20250805`.
const DATED_NAME = /^(.+?)(?:-\d{8}|-\d{4}-\d{2}-\d{2}|@\d{8})$/;

/** Names that would reach an object's prototype machinery rather than a row. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

// Modes whose tool outputs an agent carries; embeddings, images and audio price other things.
const TEXT_MODES = new Set(["chat", "completion", "responses"]);

/**
 * The seed's name for a LiteLLM provider.
 *
 * @example
 * seedProvider("gemini") // "google"
 */
export function seedProvider(litellmProvider: string): string {
  const name = litellmProvider.toLowerCase();
  return PROVIDER_NAMES[name] ?? name;
}

/**
 * An entry's model name as the gate knows it (LiteLLM's `provider/` prefix
 * dropped), or null when it is no name the gate accepts.
 *
 * @example
 * modelNameOf("gemini/gemini-2.5-pro", "gemini") // "gemini-2.5-pro"
 * modelNameOf("__proto__", "openai") // null
 */
export function modelNameOf(key: string, litellmProvider: string): string | null {
  const prefix = `${litellmProvider}/`;
  const name = key.startsWith(prefix) ? key.slice(prefix.length) : key;
  return MODEL_NAME_PATTERN.test(name) && !RESERVED_NAMES.has(name) ? name : null;
}

/**
 * Why an entry's prices cannot be trusted (a price field that is not a
 * finite, non-negative number a row could hold), or null. A file with such
 * an entry is malformed, not merely odd.
 *
 * @example
 * badPrice({ input_cost_per_token: "3e-6" }) // "input_cost_per_token is not a number"
 */
export function badPrice(entry: Readonly<Record<string, unknown>>): string | null {
  for (const [field, value] of Object.entries(entry)) {
    const base = TIER_FIELD.exec(field)?.[1] ?? field;
    if (!Object.hasOwn(BASE_FIELDS, base)) continue;
    if (typeof value !== "number" || !Number.isFinite(value)) return `${field} is not a number`;
    if (value < 0 || value * 1_000_000 > MAX_PRICE_USD_PER_MILLION) return `${field} is out of range (${value})`;
  }
  return null;
}

/**
 * Whether an entry prices text generation (the gate's business), as opposed
 * to embeddings, images or audio.
 *
 * @example
 * isTextModel({ mode: "embedding" }) // false
 */
export function isTextModel(entry: Readonly<Record<string, unknown>>): boolean {
  return typeof entry.mode !== "string" || TEXT_MODES.has(entry.mode);
}

/**
 * One LiteLLM entry as a row, or null (with a note saying why) when it
 * cannot price a gate decision. LiteLLM's `deprecation_date` becomes
 * `retires_at`.
 *
 * @example
 * convertEntry("claude-x", { input_cost_per_token: 3e-6, output_cost_per_token: 1.5e-5 }, "https://example.com/prices.json").row
 * // { input: 3, output: 15, source: "https://example.com/prices.json" }
 */
export function convertEntry(
  name: string,
  entry: Readonly<Record<string, unknown>>,
  source: string,
): { row: PricingRow | null; notes: string[] } {
  const notes: string[] = [];
  const row: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(BASE_FIELDS)) {
    const price = perMillion(entry[from]);
    if (price !== undefined) row[to] = price;
  }
  if (!isTextModel(entry))
    return { row: null, notes: [`${name}: skipped, mode ${String(entry.mode)} is not a text-generation model`] };
  if (row.input === undefined || row.output === undefined) {
    return {
      row: null,
      notes: [
        `${name}: skipped, it has no input_cost_per_token and output_cost_per_token (mode ${String(entry.mode ?? "unknown")})`,
      ],
    };
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
    if (thresholds.length > 1)
      notes.push(`${name}: LiteLLM has tiers above ${thresholds.join(", ")} tokens; only the first (${first}) is kept`);
  }
  if (typeof entry.litellm_provider === "string" && entry.litellm_provider !== "")
    row.provider = seedProvider(entry.litellm_provider).slice(0, 64);
  row.source = source;
  if (typeof entry.deprecation_date === "string" && /^\d{4}-\d{2}-\d{2}$/.test(entry.deprecation_date)) {
    row.retires_at = entry.deprecation_date;
    notes.push(
      `${name}: LiteLLM's deprecation_date ${entry.deprecation_date} is kept as retires_at; name its replaced_by by hand`,
    );
  }

  const parsed = PricingRowSchema.safeParse(row);
  if (!parsed.success)
    return { row: null, notes: [`${name}: skipped, the converted row is invalid: ${describeIssues(parsed.error)}`] };
  return { row: parsed.data, notes };
}

/** USD per token → USD per million tokens, without float noise (1.5e-5 → 15, not 15.000000000000002). */
export function perMillion(value: unknown): number | undefined {
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  return Number((value * 1_000_000).toPrecision(12));
}

/**
 * Folds dated snapshots into their base rows' aliases when they bill the
 * same; with no base entry, the newest snapshot's prices name the base row;
 * one that bills differently keeps its own row. Names come out sorted.
 *
 * @example
 * foldDatedNames(new Map([["gpt-5", row], ["gpt-5-2025-08-07", row]]), notes)
 * // { "gpt-5": { ...row, aliases: ["gpt-5-2025-08-07"] } }
 */
export function foldDatedNames(
  converted: ReadonlyMap<string, PricingRow>,
  notes: string[],
): Record<string, PricingRow> {
  const models = new Map<string, PricingRow>();
  const dated: [string, string][] = [];
  for (const [name, row] of converted) {
    const base = DATED_NAME.exec(name)?.[1];
    if (base === undefined) models.set(name, row);
    else dated.push([name, base]);
  }
  // Newest first: with no base entry, the newest snapshot's prices name the base row.
  dated.sort(([a], [b]) => b.localeCompare(a));
  // Each owner's aliases and price key, gathered as the snapshots fold in and
  // written into its row once at the end: linear in the snapshots, where
  // copying and sorting the alias list per snapshot was quadratic.
  const folded = new Map<string, { key: string; aliases: Set<string> }>();
  const ownerOf = (base: string, owner: PricingRow) => {
    let entry = folded.get(base);
    if (entry === undefined)
      folded.set(base, (entry = { key: priceKey(owner), aliases: new Set(owner.aliases ?? []) }));
    return entry;
  };
  for (const [name, base] of dated) {
    const row = converted.get(name) as PricingRow;
    const owner = models.get(base);
    if (owner === undefined) {
      models.set(base, row);
      ownerOf(base, row).aliases.add(name);
      notes.push(`${name}: imported as ${base}, with ${name} as its alias`);
    } else if (ownerOf(base, owner).key === priceKey(row)) {
      ownerOf(base, owner).aliases.add(name);
    } else {
      // Its own row replaces anything folded under its name so far, as a fresh row would.
      models.set(name, row);
      folded.delete(name);
      notes.push(`${name}: bills differently from ${base}, so it keeps its own row`);
    }
  }
  for (const [base, { aliases }] of folded) {
    if (aliases.size > 0) models.set(base, { ...(models.get(base) as PricingRow), aliases: [...aliases].sort() });
  }
  return Object.fromEntries([...models].sort(([a], [b]) => a.localeCompare(b)));
}

type Tier = Partial<Record<(typeof PRICE_FIELDS)[number], number>> & { threshold_tokens?: number };

/**
 * The row's prices alone (no names, sources or dates), in a stable order:
 * two rows with the same key bill the same.
 *
 * @example
 * priceKey({ input: 1, output: 2, source: "https://x" }) === priceKey({ output: 2, input: 1 }) // true
 */
export function priceKey(row: PricingRow): string {
  const pick = (tier: Tier) =>
    [tier.threshold_tokens, ...PRICE_FIELDS.map((field) => tier[field])]
      .map((value) => (value === undefined ? "-" : String(value)))
      .join(",");
  return row.long_context === undefined ? pick(row) : `${pick(row)}|${pick(row.long_context)}`;
}
