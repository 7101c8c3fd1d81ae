/**
 * Alias keys as KV holds them, for ops to see and clean: each `alias:` key,
 * the model it points to, and whether that model's row still claims it.
 */
import { ApiError } from "../../http";
import { listValues, rememberAlias } from "..";
import { ALIAS_PREFIX, aliasKey } from "../rules";
import { auditedWrite } from "./audited";
import { readHistory } from "./history";
import { withKvRetry } from "./kv-retry";
import { readStoredRow, type StoredRow } from "./rows";

/** One alias key: where it points, and why it is stray (null: it is not). */
export interface AliasView {
  alias: string;
  target: string;
  stray: string | null;
}

/**
 * Why an alias key pointing at `target` is stray, or null when the target's
 * valid row lists it. A stray alias prices nothing a row vouches for.
 *
 * @example
 * strayReason("gpt-5-old", "gpt-5", null) // "gpt-5 has no pricing row"
 */
export function strayReason(alias: string, target: string, stored: StoredRow | null): string | null {
  if (stored === null) return `${target} has no pricing row`;
  if (stored.row === null) return `${target}'s row is invalid (${stored.problem ?? "invalid"})`;
  if (!(stored.row.aliases ?? []).includes(alias)) return `${target}'s row does not list ${alias}`;
  return null;
}

/**
 * Every alias key, sorted by name, each flagged when stray.
 *
 * @example
 * const aliases = await listAliases(env.PRICING); // [{ alias: "gpt-5-old", target: "gpt-5", stray: null }]
 */
export async function listAliases(kv: KVNamespace): Promise<AliasView[]> {
  const keys = await listValues(kv, ALIAS_PREFIX);
  const targets = new Map<string, Promise<StoredRow | null>>();
  const views = [...keys].map(async ([alias, text]) => {
    const target = text.trim();
    if (!targets.has(target)) targets.set(target, readStoredRow(kv, target));
    return { alias, target, stray: strayReason(alias, target, await targets.get(target)!) };
  });
  return (await Promise.all(views)).sort((a, b) => (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
}

/**
 * Deletes a stray alias key, recorded in `history:alias:<name>`. An alias
 * that its model's row still lists is refused: edit that row instead, or
 * the row would list an alias that prices nothing.
 *
 * @example
 * await deleteStrayAlias(env.PRICING, "gpt-5-old", "ops-alice");
 */
export async function deleteStrayAlias(
  kv: KVNamespace,
  alias: string,
  by: string,
): Promise<AliasView & { version: number }> {
  const [text, history] = await Promise.all([kv.get(aliasKey(alias)), readHistory(kv, aliasKey(alias))]);
  if (text === null) throw new ApiError("not_found", `no alias key for ${alias}`);
  const target = text.trim();
  const stray = strayReason(alias, target, await readStoredRow(kv, target));
  if (stray === null) {
    throw new ApiError("invalid_request", `${alias} is listed by ${target}'s row; remove it from that row instead`, [
      { path: "alias", message: `is listed by ${target}'s row` },
    ]);
  }
  const change = { subject: aliasKey(alias), by, before: target, after: null, history };
  const outcome = await auditedWrite(kv, change, async () => {
    await withKvRetry(() => kv.delete(aliasKey(alias)), aliasKey(alias));
    return true;
  });
  rememberAlias(alias, null, null);
  return { alias, target, stray, version: outcome.version };
}
