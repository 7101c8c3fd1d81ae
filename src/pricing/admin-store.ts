/**
 * Pricing writes for the admin API: a row and its alias keys, each change
 * audited in `history:pricing:<model>`, and served at once by the isolate
 * that made it. Every KV write retries KV's 429 (see kv-retry.ts).
 */
import { ApiError, type ErrorIssue } from "../http/errors";
import { appendHistory, currentVersion, readHistory, valueAt, type HistoryEntry } from "./history";
import { withKvRetry } from "./kv-retry";
import { canonicalJson } from "./canonical";
import { cacheRatioWarnings } from "./ratios";
import { PricingRowSchema, type PricingRow } from "./schema";
import { aliasKey, parseRow, pricingKey, rememberAlias, rememberRow } from "./store";

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
 * Every row and alias in KV, paging through list() until list_complete and
 * reading values 100 keys at a time.
 *
 * @example
 * const { rows, aliases } = await listPricing(env.PRICING);
 */
export async function listPricing(kv: KVNamespace): Promise<{ rows: StoredRow[]; aliases: Record<string, string> }> {
  const [rowTexts, aliasTexts] = await Promise.all([readPrefix(kv, "pricing:"), readPrefix(kv, "alias:")]);
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
export async function putPricing(
  kv: KVNamespace,
  model: string,
  row: PricingRow,
  by: string,
  rollback?: number,
): Promise<WriteOutcome> {
  const [current, history] = await Promise.all([readStoredRow(kv, model), readHistory(kv, pricingKey(model))]);
  const warnings = cacheRatioWarnings(model, row);
  const aliases = row.aliases ?? [];
  const aliasesToWrite = await checkAliases(kv, model, aliases);
  if (rollback === undefined && current !== null && canonicalJson(current.value) === canonicalJson(row)) {
    return { model, row, changed: false, version: currentVersion(history), warnings };
  }
  await withKvRetry(() => kv.put(pricingKey(model), JSON.stringify(row)), pricingKey(model));
  const dropped = (current?.row?.aliases ?? []).filter((alias) => !aliases.includes(alias));
  await Promise.all([
    ...aliasesToWrite.map((alias) => withKvRetry(() => kv.put(aliasKey(alias), model), aliasKey(alias))),
    ...dropped.map((alias) => dropAlias(kv, alias, model)),
  ]);
  const entry = await record(kv, model, history, by, current, row, rollback);
  rememberRow(model, row);
  for (const alias of aliases) rememberAlias(alias, model, row);
  for (const alias of dropped) rememberAlias(alias, null, null);
  return { model, row, changed: true, version: entry.version, warnings };
}

/**
 * Deletes a row and the alias keys that point to it, and records the change.
 *
 * @example
 * await deletePricing(env.PRICING, "gpt-4", "ops-alice");
 */
export async function deletePricing(kv: KVNamespace, model: string, by: string, rollback?: number): Promise<WriteOutcome> {
  const [current, history] = await Promise.all([readStoredRow(kv, model), readHistory(kv, pricingKey(model))]);
  if (current === null) {
    if (rollback !== undefined) return { model, row: null, changed: false, version: currentVersion(history), warnings: [] };
    throw new ApiError("not_found", `no pricing row for ${model}`);
  }
  await withKvRetry(() => kv.delete(pricingKey(model)), pricingKey(model));
  const aliases = current.row?.aliases ?? [];
  await Promise.all(aliases.map((alias) => dropAlias(kv, alias, model)));
  const entry = await record(kv, model, history, by, current, null, rollback);
  rememberRow(model, null);
  for (const alias of aliases) rememberAlias(alias, null, null);
  return { model, row: null, changed: true, version: entry.version, warnings: [] };
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
  const target = valueAt(history, version);
  if (!target.found) {
    const range = target.earliest === null ? "it has no history" : `versions ${target.earliest}–${currentVersion(history)} can be restored`;
    throw new ApiError("not_found", `${model} has no version ${version}: ${range}`, [{ path: "version", message: "is not in the history" }]);
  }
  if (target.value === null) return deletePricing(kv, model, by, version);
  const parsed = PricingRowSchema.safeParse(target.value);
  if (!parsed.success) {
    throw new ApiError("invalid_request", `version ${version} of ${model} is not a valid row, so it cannot be restored`, [
      { path: "version", message: "holds an invalid row" },
    ]);
  }
  return putPricing(kv, model, parsed.data, by, version);
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
  if (issues.length > 0) {
    throw new ApiError("invalid_request", issues.map((issue) => `${issue.path} ${issue.message}`).join("; "), issues);
  }
  return found.filter(({ target }) => target?.trim() !== model).map(({ alias }) => alias);
}

async function dropAlias(kv: KVNamespace, alias: string, model: string): Promise<void> {
  // Only an alias that still points here: another row may have claimed it since.
  const target = await kv.get(aliasKey(alias));
  if (target !== null && target.trim() === model) await withKvRetry(() => kv.delete(aliasKey(alias)), aliasKey(alias));
}

function record(
  kv: KVNamespace,
  model: string,
  history: Awaited<ReturnType<typeof readHistory>>,
  by: string,
  before: StoredRow | null,
  after: PricingRow | null,
  rollback: number | undefined,
): Promise<HistoryEntry> {
  return appendHistory(kv, pricingKey(model), history, {
    action: rollback !== undefined ? "rollback" : after === null ? "delete" : "put",
    by,
    before: before?.value ?? null,
    after,
    ...(rollback !== undefined ? { rolled_back_to: rollback } : {}),
  });
}

function storedOf(model: string, text: string): StoredRow {
  const outcome = parseRow(model, text);
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: keep the text, so history shows exactly what was there.
  }
  return outcome.kind === "row"
    ? { model, row: outcome.row, problem: null, value }
    : { model, row: null, problem: outcome.kind === "invalid" ? outcome.detail : "absent", value };
}

async function readPrefix(kv: KVNamespace, prefix: string): Promise<Map<string, string>> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await kv.list(cursor === undefined ? { prefix } : { prefix, cursor });
    names.push(...page.keys.map((key) => key.name));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
  const values = new Map<string, string>();
  for (let start = 0; start < names.length; start += 100) {
    const batch = await kv.get(names.slice(start, start + 100), "text");
    for (const [name, text] of batch) if (text !== null) values.set(name.slice(prefix.length), text);
  }
  return values;
}
