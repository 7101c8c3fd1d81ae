/**
 * Pending price changes in KV (`pending:<model>`): what the scheduled sync
 * proposes and an admin approves or rejects. The sync writes only these
 * keys; a pricing row changes only through an approval.
 */
import { z } from "@hono/zod-openapi";
import { describeIssues } from "../gate";
import { forgetListings, listValues } from "../storage";
import { PENDING_PREFIX, pendingKey } from "../storage/rules";
import { ModelNameSchema, PricingRowSchema } from "../storage/schemas";
import { canonicalJson } from "../storage/write";
import type { ProposedChange } from "./diff";

/** One proposed change as stored and as the admin API shows it. */
export const PendingChangeSchema = z
  .strictObject({
    model: ModelNameSchema,
    kind: z.enum(["changed", "added", "removed"]).openapi({
      description:
        "changed: new prices for a row KV has; added: a model KV lacks; removed: a row the source no longer lists",
    }),
    status: z
      .enum(["pending", "rejected"])
      .openapi({ description: "rejected: kept so the next sync does not propose the same change again" }),
    before: PricingRowSchema.nullable().openapi({
      description: "KV's row when the sync ran; an approval refuses if it has changed since",
    }),
    after: PricingRowSchema.nullable().openapi({
      description: "The row an approval writes; null: an approval deletes the row",
    }),
    fields: z.array(z.strictObject({ field: z.string(), from: z.number().nullable(), to: z.number().nullable() })),
    source: z.url(),
    detected_at: z.iso.datetime(),
    rejected_by: z.string().optional(),
    rejected_at: z.iso.datetime().optional(),
    note: z.string().max(500).optional(),
  })
  .openapi("PendingChange");

export type PendingChange = z.infer<typeof PendingChangeSchema>;

/** A proposal's digest: lowercase hex SHA-256, as the listing gives it and an approval sends it back. */
export const DigestSchema = z
  .string({
    error: (issue) =>
      issue.input === undefined ? "is required: send the digest the listing gives for this change" : "must be a string",
  })
  .regex(/^[0-9a-f]{64}$/, "must be the 64 hex digits the listing gives for this change")
  .openapi({ example: "4f1c0a3e9d2b7c6a5f8e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a" });

/**
 * The digest of what approving a change would do: its model, kind, and the
 * row before and after (canonical JSON, SHA-256). A new proposal for the
 * model has a new digest; a rejection, a note or a re-detection of the same
 * change keeps it.
 *
 * @example
 * await pendingDigest(change) // "4f1c0a3e…" (64 hex digits)
 */
export async function pendingDigest(
  change: Pick<PendingChange, "model" | "kind" | "before" | "after">,
): Promise<string> {
  const text = canonicalJson({ model: change.model, kind: change.kind, before: change.before, after: change.after });
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Each change with its digest, for the listing and the console.
 *
 * @example
 * (await withDigests(changes))[0].digest // "4f1c0a3e…"
 */
export async function withDigests(changes: readonly PendingChange[]): Promise<(PendingChange & { digest: string })[]> {
  return Promise.all(changes.map(async (change) => ({ ...change, digest: await pendingDigest(change) })));
}

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
  invalid: InvalidPending[];
}

/** A stored pending value that does not parse; `synced`: it has the shape only the sync writes. */
export interface InvalidPending {
  model: string;
  detail: string;
  synced: boolean;
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
  const invalid: InvalidPending[] = [];
  for (const [model, text] of values) {
    const parsed = parsePending(text);
    if (parsed === null) continue;
    if (parsed.ok) changes.push(parsed.change);
    else invalid.push({ model, detail: parsed.detail, synced: writtenBySync(text) });
  }
  return { changes: changes.sort((a, b) => a.model.localeCompare(b.model)), invalid };
}

/**
 * One stored pending change: null when absent, else parsed or what is wrong.
 *
 * @example
 * parsePending('{"model":"gpt-5",...}') // { ok: true, change: {...} }
 */
export function parsePending(
  text: string | null,
): { ok: true; change: PendingChange } | { ok: false; detail: string } | null {
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

// An unreadable value the sync itself wrote (an older version's, or one stored before proposals
// were validated): a JSON object with the fields only the sync sets. Anything else is not the
// sync's to withdraw; an admin deletes it (DELETE /v1/admin/pending/{model}).
function writtenBySync(text: string): boolean {
  try {
    const json: unknown = JSON.parse(text);
    if (json === null || typeof json !== "object" || Array.isArray(json)) return false;
    const { detected_at: detected, source, kind } = json as Record<string, unknown>;
    return typeof detected === "string" && typeof source === "string" && typeof kind === "string";
  } catch {
    return false;
  }
}

/**
 * Stores a sync's proposals: a proposal already stored (pending or
 * rejected) is left alone, a new or different one replaces it, and a stored
 * one the sync no longer proposes (KV already agrees with the source, or the
 * source no longer supports it) goes, unreadable ones the sync wrote too.
 *
 * @example
 * await storeProposals(env.PRICING, changes, await listPending(env.PRICING), "https://example.com/prices.json", "2026-11-30T06:17:00.000Z");
 */
export async function storeProposals(
  kv: KVNamespace,
  proposals: readonly ProposedChange[],
  stored: PendingList,
  source: string,
  detectedAt: string,
): Promise<StoreOutcome> {
  const held = new Map<string, PendingChange | null>(stored.changes.map((change) => [change.model, change]));
  for (const entry of stored.invalid) if (entry.synced) held.set(entry.model, null);
  const outcome: StoreOutcome = { written: [], unchanged: [], deleted: [] };
  for (const proposal of proposals) {
    const previous = held.get(proposal.model);
    held.delete(proposal.model);
    if (
      previous != null &&
      previous.kind === proposal.kind &&
      canonicalJson(previous.after) === canonicalJson(proposal.after)
    ) {
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
