/**
 * Pricing writes for the admin API: a row and its alias keys, each change
 * audited in `history:pricing:<model>`, and served at once by the isolate
 * that made it. Every KV write retries KV's 429 (see kv-retry.ts).
 */
import { fieldIssues } from "../../gate";
import { ApiError, type ErrorIssue, invalidRequest } from "../../http";
import { listValues, rememberAlias, rememberRow } from "..";
import { ALIAS_PREFIX, aliasKey, PRICING_PREFIX, pricingKey } from "../rules";
import { type PricingRow, PricingRowSchema, parseRow, storedValue } from "../schemas";
import { auditedWrite, restorable } from "./audited";
import { canonicalJson } from "./canonical";
import { droppedFieldWarnings } from "./dropped";
import { readHistory } from "./history";
import { withKvRetry } from "./kv-retry";
import { mergePatch } from "./merge-patch";
import { cacheGapWarnings, cacheRatioWarnings, zeroPriceWarnings } from "./ratios";

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
 * The alias keys that point at `model`, whatever its stored row says: a
 * corrupt or invalid row lists none, and a key may outlive its row.
 *
 * @example
 * await aliasesPointingAt(env.PRICING, "gpt-5") // ["gpt-5-2025-08-07"]
 */
export async function aliasesPointingAt(kv: KVNamespace, model: string): Promise<string[]> {
  const aliases = await listValues(kv, ALIAS_PREFIX);
  return [...aliases].filter(([, target]) => target.trim() === model).map(([alias]) => alias);
}

/**
 * Writes a validated row and its alias keys, removes the alias keys that
 * point here but it no longer lists, and records the change. Writing the
 * row it already holds records nothing, but repairs its alias keys; a retry
 * after a partial failure finishes the job (see auditedWrite).
 *
 * @example
 * await putPricing(env.PRICING, "gpt-5", { input: 1.25, output: 10 }, "ops-alice");
 */
export async function putPricing(
  kv: KVNamespace,
  model: string,
  row: PricingRow,
  by: string,
  rollbackTo?: number,
  bodyText?: string,
): Promise<WriteOutcome> {
  if (row.verified_at !== undefined && row.verified_at > latestToday()) {
    throw invalidRequest([{ path: "verified_at", message: "must not be in the future" }]);
  }
  const [current, history, pointing] = await Promise.all([
    readStoredRow(kv, model),
    readHistory(kv, pricingKey(model)),
    aliasesPointingAt(kv, model),
  ]);
  const warnings = [
    ...droppedFieldWarnings(current?.row ?? null, row),
    ...cacheRatioWarnings(model, row),
    ...cacheGapWarnings(row),
    ...(bodyText === undefined ? [] : zeroPriceWarnings(row, bodyText)),
  ];
  const aliases = row.aliases ?? [];
  const aliasesToWrite = await checkAliases(kv, model, aliases);
  const dropped = pointing.filter((alias) => !aliases.includes(alias));
  const before = current?.value ?? null;
  const change = { subject: pricingKey(model), by, before, after: row, history, rollbackTo };
  const outcome = await auditedWrite(kv, change, async () => {
    const rowDiffers = canonicalJson(before) !== canonicalJson(row);
    if (rowDiffers) await withKvRetry(() => kv.put(pricingKey(model), JSON.stringify(row)), pricingKey(model));
    await Promise.all([
      ...aliasesToWrite.map((alias) => withKvRetry(() => kv.put(aliasKey(alias), model), aliasKey(alias))),
      ...dropped.map((alias) => dropAlias(kv, alias, model)),
    ]);
    return rowDiffers || aliasesToWrite.length > 0 || dropped.length > 0;
  });
  if (outcome.changed) {
    rememberRow(model, row);
    for (const alias of aliases) rememberAlias(alias, model, row);
    for (const alias of dropped) rememberAlias(alias, null, null);
  }
  return { model, row, ...outcome, warnings };
}

/**
 * Applies a JSON merge patch to the stored row (a corrupt one too, if it is
 * a JSON object: patching its bad field repairs it) and writes the result
 * as PUT does, audited the same way. The merged row must pass the row's
 * schema: its 400 names the field as the patch does.
 *
 * @example
 * await patchPricing(env.PRICING, "gpt-5", { input: 1.5 }, "ops-alice", '{"input":1.5}');
 */
export async function patchPricing(
  kv: KVNamespace,
  model: string,
  patch: Record<string, unknown>,
  by: string,
  bodyText: string,
): Promise<WriteOutcome> {
  const stored = await readStoredRow(kv, model);
  if (stored === null)
    throw new ApiError("not_found", `no pricing row for ${model}; create it with PUT /v1/admin/pricing/${model}`);
  const parsed = PricingRowSchema.safeParse(mergePatch(stored.row ?? stored.value, patch));
  if (!parsed.success) throw invalidRequest(fieldIssues(parsed.error));
  return putPricing(kv, model, parsed.data, by, undefined, bodyText);
}

/**
 * Deletes a row and every alias key that points to it, and records the
 * change. A row already gone answers 404 unless alias keys still point to
 * it: then the delete finishes by removing them (a retried DELETE).
 *
 * @example
 * await deletePricing(env.PRICING, "gpt-4", "ops-alice");
 */
export async function deletePricing(
  kv: KVNamespace,
  model: string,
  by: string,
  rollbackTo?: number,
): Promise<WriteOutcome> {
  const [current, history, pointing] = await Promise.all([
    readStoredRow(kv, model),
    readHistory(kv, pricingKey(model)),
    aliasesPointingAt(kv, model),
  ]);
  if (current === null && pointing.length === 0 && rollbackTo === undefined) {
    throw new ApiError("not_found", `no pricing row for ${model}`);
  }
  // Restoring "absent" to an absent row: nothing to record.
  const change = { subject: pricingKey(model), by, before: current?.value ?? null, after: null, history };
  const outcome = await auditedWrite(kv, current === null ? change : { ...change, rollbackTo }, async () => {
    if (current !== null) await withKvRetry(() => kv.delete(pricingKey(model)), pricingKey(model));
    await Promise.all(pointing.map((alias) => dropAlias(kv, alias, model)));
    return current !== null || pointing.length > 0;
  });
  if (outcome.changed) {
    rememberRow(model, null);
    for (const alias of new Set([...pointing, ...(current?.row?.aliases ?? [])])) rememberAlias(alias, null, null);
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
export async function rollbackPricing(
  kv: KVNamespace,
  model: string,
  version: number,
  by: string,
): Promise<WriteOutcome> {
  const history = await readHistory(kv, pricingKey(model));
  const wording = { name: model, noun: "row", listRange: true, invalidTail: ", so it cannot be restored" };
  const row = restorable(history, version, PricingRowSchema, wording);
  return row === null ? deletePricing(kv, model, by, version) : putPricing(kv, model, row, by, version);
}

// A stray alias key must not block a row for good: say how to clear it.
const REMEDY =
  "update that row, or delete the key with DELETE /v1/admin/aliases/{alias} if it is stray (GET /v1/admin/aliases flags it)";

// Refuses aliases another row holds; returns those whose key must be
// written (the rest already point here: no write, so no 429 risk).
async function checkAliases(kv: KVNamespace, model: string, aliases: string[]): Promise<string[]> {
  const [ownAlias, ...found] = await Promise.all([
    kv.get(aliasKey(model)),
    ...aliases.map(async (alias) => ({
      alias,
      row: await kv.get(pricingKey(alias)),
      target: await kv.get(aliasKey(alias)),
    })),
  ]);
  const issues: ErrorIssue[] = [];
  if (ownAlias !== null) issues.push({ path: "model", message: `is an alias of ${ownAlias.trim()}; ${REMEDY}` });
  found.forEach(({ alias, row, target }, index) => {
    const path = `aliases.${index}`;
    if (alias === model) issues.push({ path, message: "is the model's own name" });
    else if (row !== null) issues.push({ path, message: `${alias} has its own pricing row` });
    else if (target !== null && target.trim() !== model)
      issues.push({ path, message: `${alias} is already an alias of ${target.trim()}; ${REMEDY}` });
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

// The latest date it is anywhere on Earth now (UTC+14): a row verified
// "today" in any time zone is not in the future.
function latestToday(): string {
  return new Date(Date.now() + 14 * 3_600_000).toISOString().slice(0, 10);
}
