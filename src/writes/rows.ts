/**
 * Pricing writes for the admin API: a row and its alias keys, each change
 * audited in `history:pricing:<model>`, and served at once by the isolate
 * that made it. Every KV write retries KV's 429 (see kv-retry.ts).
 */
import { ApiError, invalidRequest, type ErrorIssue } from "../http/errors";
import { ALIAS_PREFIX, aliasKey, PRICING_PREFIX, pricingKey } from "../store/keys";
import { listValues } from "../store/list";
import { parseRow, rememberAlias, rememberRow } from "../store/read";
import { PricingRowSchema, storedValue, type PricingRow } from "../store/schema";
import { auditedWrite, restorable } from "./audited";
import { readHistory } from "./history";
import { withKvRetry } from "./kv-retry";
import { cacheRatioWarnings } from "./ratios";

/** A row as stored: the parsed row, or what is wrong with the stored text. */
export interface StoredRow {
  model: string;
  row: PricingRow | null;
  problem: string | null;
  /** The stored value as JSON when it parses, else its text; null when absent. */
  value: unknown;
}

/** What a write did. */
export interface WriteOutcome {
  model: string;
  row: PricingRow | null;
  changed: boolean;
  version: number;
  warnings: ErrorIssue[];
}

/**
 * Reads one row as stored, valid or not, for ops to see and fix.
 *
 * @example
 * const { row, problem } = await readStoredRow(env.PRICING, "gpt-5");
 */
export async function readStoredRow(kv: KVNamespace, model: string): Promise<StoredRow | null> {
  const text = await kv.get(pricingKey(model));
  return text === null ? null : storedOf(model, text);
}

/**
 * Every row and alias in KV, valid or not.
 *
 * @example
 * const { rows, aliases } = await listPricing(env.PRICING);
 */
export async function listPricing(kv: KVNamespace): Promise<{ rows: StoredRow[]; aliases: Record<string, string> }> {
  const [rowTexts, aliasTexts] = await Promise.all([listValues(kv, PRICING_PREFIX), listValues(kv, ALIAS_PREFIX)]);
  const rows = [...rowTexts].map(([model, text]) => storedOf(model, text));
  return { rows, aliases: Object.fromEntries([...aliasTexts].map(([alias, target]) => [alias, target.trim()])) };
}

/**
 * Writes a validated row and its alias keys, removes alias keys it no longer
 * lists, and records the change. Writing the row it already holds changes
 * nothing and records nothing.
 *
 * @example
 * await putPricing(env.PRICING, "gpt-5", { input: 1.25, output: 10 }, "ops-alice");
 */
export async function putPricing(kv: KVNamespace, model: string, row: PricingRow, by: string, rollbackTo?: number): Promise<WriteOutcome> {
  const [current, history] = await Promise.all([readStoredRow(kv, model), readHistory(kv, pricingKey(model))]);
  const warnings = cacheRatioWarnings(model, row);
  const aliases = row.aliases ?? [];
  const aliasesToWrite = await checkAliases(kv, model, aliases);
  const dropped = (current?.row?.aliases ?? []).filter((alias) => !aliases.includes(alias));
  const change = { subject: pricingKey(model), by, before: current?.value ?? null, after: row, history, rollbackTo };
  const outcome = await auditedWrite(kv, change, async () => {
    await withKvRetry(() => kv.put(pricingKey(model), JSON.stringify(row)), pricingKey(model));
    await Promise.all([
      ...aliasesToWrite.map((alias) => withKvRetry(() => kv.put(aliasKey(alias), model), aliasKey(alias))),
      ...dropped.map((alias) => dropAlias(kv, alias, model)),
    ]);
  });
  if (outcome.changed) {
    rememberRow(model, row);
    for (const alias of aliases) rememberAlias(alias, model, row);
    for (const alias of dropped) rememberAlias(alias, null, null);
  }
  return { model, row, ...outcome, warnings };
}

/**
 * Deletes a row and the alias keys that point to it, and records the change.
 *
 * @example
 * await deletePricing(env.PRICING, "gpt-4", "ops-alice");
 */
export async function deletePricing(kv: KVNamespace, model: string, by: string, rollbackTo?: number): Promise<WriteOutcome> {
  const [current, history] = await Promise.all([readStoredRow(kv, model), readHistory(kv, pricingKey(model))]);
  if (current === null && rollbackTo === undefined) throw new ApiError("not_found", `no pricing row for ${model}`);
  // Restoring "absent" to an absent row: nothing to write, nothing to record.
  const change = { subject: pricingKey(model), by, before: current?.value ?? null, after: null, history };
  const aliases = current?.row?.aliases ?? [];
  const outcome = await auditedWrite(kv, current === null ? change : { ...change, rollbackTo }, async () => {
    await withKvRetry(() => kv.delete(pricingKey(model)), pricingKey(model));
    await Promise.all(aliases.map((alias) => dropAlias(kv, alias, model)));
  });
  if (outcome.changed) {
    rememberRow(model, null);
    for (const alias of aliases) rememberAlias(alias, null, null);
  }
  return { model, row: null, ...outcome, warnings: [] };
}

/**
 * Restores the row as it stood at `version` (a put, or a delete if it was
 * absent then), recorded as a change of its own.
 *
 * @example
 * await rollbackPricing(env.PRICING, "gpt-5", 3, "ops-alice");
 */
export async function rollbackPricing(kv: KVNamespace, model: string, version: number, by: string): Promise<WriteOutcome> {
  const history = await readHistory(kv, pricingKey(model));
  const wording = { name: model, noun: "row", listRange: true, invalidTail: ", so it cannot be restored" };
  const row = restorable(history, version, PricingRowSchema, wording);
  return row === null ? deletePricing(kv, model, by, version) : putPricing(kv, model, row, by, version);
}

// Refuses aliases another row holds; returns those whose key must be
// written (the rest already point here: no write, so no 429 risk).
async function checkAliases(kv: KVNamespace, model: string, aliases: string[]): Promise<string[]> {
  const [ownAlias, ...found] = await Promise.all([
    kv.get(aliasKey(model)),
    ...aliases.map(async (alias) => ({ alias, row: await kv.get(pricingKey(alias)), target: await kv.get(aliasKey(alias)) })),
  ]);
  const issues: ErrorIssue[] = [];
  if (ownAlias !== null) issues.push({ path: "model", message: `is an alias of ${ownAlias.trim()}; update that row or remove the alias first` });
  found.forEach(({ alias, row, target }, index) => {
    const path = `aliases.${index}`;
    if (alias === model) issues.push({ path, message: "is the model's own name" });
    else if (row !== null) issues.push({ path, message: `${alias} has its own pricing row` });
    else if (target !== null && target.trim() !== model) issues.push({ path, message: `${alias} is already an alias of ${target.trim()}` });
  });
  if (issues.length > 0) throw invalidRequest(issues);
  return found.filter(({ target }) => target?.trim() !== model).map(({ alias }) => alias);
}

async function dropAlias(kv: KVNamespace, alias: string, model: string): Promise<void> {
  // Only an alias that still points here: another row may have claimed it since.
  const target = await kv.get(aliasKey(alias));
  if (target !== null && target.trim() === model) await withKvRetry(() => kv.delete(aliasKey(alias)), aliasKey(alias));
}

function storedOf(model: string, text: string): StoredRow {
  const outcome = parseRow(model, text);
  const value = storedValue(text);
  return outcome.kind === "row"
    ? { model, row: outcome.row, problem: null, value }
    : { model, row: null, problem: outcome.kind === "invalid" ? outcome.detail : "absent", value };
}
