/**
 * Pending price changes in KV (`pending:<model>`): what the scheduled sync
 * proposes and an admin approves or rejects. The sync writes only these
 * keys; a pricing row changes only through an approval.
 */
import { z } from "@hono/zod-openapi";
import { canonicalJson } from "../writes/canonical";
import { describeIssues } from "../gate/issues";
import { ModelNameSchema, PricingRowSchema } from "../store/schema";
import { PENDING_PREFIX, pendingKey } from "../store/keys";
import { forgetListings } from "../store/listing";
import { listValues } from "../store/list";
import type { ProposedChange } from "./diff";

/** One proposed change as stored and as the admin API shows it. */
export const PendingChangeSchema = z
  .strictObject({
    model: ModelNameSchema,
    kind: z.enum(["changed", "added", "removed"]).openapi({ description: "changed: new prices for a row KV has; added: a model KV lacks; removed: a row the source no longer lists" }),
    status: z.enum(["pending", "rejected"]).openapi({ description: "rejected: kept so the next sync does not propose the same change again" }),
    before: PricingRowSchema.nullable().openapi({ description: "KV's row when the sync ran; an approval refuses if it has changed since" }),
    after: PricingRowSchema.nullable().openapi({ description: "The row an approval writes; null: an approval deletes the row" }),
    fields: z.array(z.strictObject({ field: z.string(), from: z.number().nullable(), to: z.number().nullable() })),
    source: z.url(),
    detected_at: z.iso.datetime(),
    rejected_by: z.string().optional(),
    rejected_at: z.iso.datetime().optional(),
    note: z.string().max(500).optional(),
  })
  .openapi("PendingChange");

export type PendingChange = z.infer<typeof PendingChangeSchema>;

/** What a sync did to the pending keys. */
export interface StoreOutcome {
  written: string[];
  unchanged: string[];
  deleted: string[];
}

/**
 * Every stored pending change, paging through list(); a value that does not
 * parse is reported, not dropped.
 *
 * @example
 * const { changes, invalid } = await listPending(env.PRICING);
 */
export async function listPending(kv: KVNamespace): Promise<PendingList> {
  return pendingFrom(await listValues(kv, PENDING_PREFIX));
}

/** Pending changes, sorted by model, and the stored ones that do not parse. */
export interface PendingList {
  changes: PendingChange[];
  invalid: { model: string; detail: string }[];
}

/**
 * The pending changes among listed `pending:` values (keyed by model), for
 * a caller that holds the listing already (the console).
 *
 * @example
 * pendingFrom(new Map([["gpt-5", '{"model":"gpt-5",...}']])) // { changes: [...], invalid: [] }
 */
export function pendingFrom(values: ReadonlyMap<string, string>): PendingList {
  const changes: PendingChange[] = [];
  const invalid: { model: string; detail: string }[] = [];
  for (const [model, text] of values) {
    const parsed = parsePending(text);
    if (parsed === null) continue;
    if (parsed.ok) changes.push(parsed.change);
    else invalid.push({ model, detail: parsed.detail });
  }
  return { changes: changes.sort((a, b) => a.model.localeCompare(b.model)), invalid };
}

/**
 * One stored pending change: null when absent, else parsed or what is wrong.
 *
 * @example
 * parsePending('{"model":"gpt-5",...}') // { ok: true, change: {...} }
 */
export function parsePending(text: string | null): { ok: true; change: PendingChange } | { ok: false; detail: string } | null {
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, detail: "not valid JSON" };
  }
  const parsed = PendingChangeSchema.safeParse(json);
  return parsed.success ? { ok: true, change: parsed.data } : { ok: false, detail: describeIssues(parsed.error) };
}

/**
 * Stores a sync's proposals: a proposal already stored (pending or
 * rejected) is left alone, a new or different one replaces it, and a stored
 * one the sync no longer proposes (KV already agrees with the source) goes.
 *
 * @example
 * await storeProposals(env.PRICING, changes, current, "https://example.com/prices.json", "2026-11-30T06:17:00.000Z");
 */
export async function storeProposals(
  kv: KVNamespace,
  proposals: readonly ProposedChange[],
  stored: readonly PendingChange[],
  source: string,
  detectedAt: string,
): Promise<StoreOutcome> {
  const held = new Map(stored.map((change) => [change.model, change]));
  const outcome: StoreOutcome = { written: [], unchanged: [], deleted: [] };
  for (const proposal of proposals) {
    const previous = held.get(proposal.model);
    held.delete(proposal.model);
    if (previous !== undefined && previous.kind === proposal.kind && canonicalJson(previous.after) === canonicalJson(proposal.after)) {
      outcome.unchanged.push(proposal.model);
      continue;
    }
    const change: PendingChange = { ...proposal, status: "pending", source, detected_at: detectedAt };
    await kv.put(pendingKey(proposal.model), JSON.stringify(change));
    outcome.written.push(proposal.model);
  }
  for (const model of held.keys()) {
    await kv.delete(pendingKey(model));
    outcome.deleted.push(model);
  }
  forgetListings();
  return outcome;
}
