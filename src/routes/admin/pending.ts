import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY } from "../../auth";
import { ApiError } from "../../http";
import { forgetListings } from "../../storage";
import { pendingKey } from "../../storage/rules";
import {
  canonicalJson,
  deletePending,
  deletePricing,
  putPricing,
  readStoredRow,
  withKvRetry,
} from "../../storage/write";
import {
  DigestSchema,
  listPending,
  type PendingChange,
  PendingChangeSchema,
  parsePending,
  pendingDigest,
  withDigests,
} from "../../sync";
import { bodyErrors, createApp, ErrorSchema, json, jsonRequest } from "../kernel/openapi";
import { ADMIN_ERRORS, ModelParamSchema, PendingDeletedSchema, WriteOutcomeSchema } from "./schema";

const common = { tags: ["admin"], security: ADMIN_SECURITY };
const BAD_BODY = bodyErrors("The body is not JSON, or holds an unknown field; the error names it");
const NOT_FOUND = { 404: json(ErrorSchema, "No pending change for this model") };
const CONFLICT = {
  409: json(
    ErrorSchema,
    "The proposal is not the one reviewed (its digest differs: the message names both), it was rejected, it is unreadable, or the row changed since the sync proposed it",
  ),
};

/** The body of an approval: the digest of the change the admin reviewed, and an optional note. */
const ApproveBodySchema = z
  .strictObject({
    digest: DigestSchema.openapi({
      description: "The change's `digest` from GET /v1/admin/pending: the approval applies only that change",
    }),
    note: z.string().max(500).optional(),
  })
  .openapi("PendingApproval");

/** The body of a rejection: an optional note, kept with it, and optionally the digest reviewed. */
const RejectBodySchema = z
  .strictObject({
    digest: DigestSchema.optional().openapi({
      description: "When sent, the rejection applies only to the change with this digest",
    }),
    note: z.string().max(500).optional(),
  })
  .openapi("PendingRejection");

const ListedChangeSchema = PendingChangeSchema.extend({
  digest: DigestSchema.openapi({
    description: "SHA-256 of the model, kind, before and after: what an approval sends back",
  }),
}).openapi("ListedPendingChange");

const PendingListSchema = z
  .object({
    count: z.number().int(),
    changes: z
      .array(ListedChangeSchema)
      .openapi({ description: "Every stored change, pending or rejected, by model, each with its digest" }),
    invalid: z
      .array(z.object({ model: z.string(), detail: z.string() }))
      .openapi({ description: "Stored changes that do not parse" }),
  })
  .openapi("PendingList");

const ApprovalSchema = z
  .object({ model: z.string(), kind: PendingChangeSchema.shape.kind, digest: DigestSchema, write: WriteOutcomeSchema })
  .openapi("PendingApplied");

const listRoute = createRoute({
  ...common,
  method: "get",
  path: "/v1/admin/pending",
  summary: "List the price changes the scheduled sync proposes",
  responses: { 200: json(PendingListSchema, "Every pending and rejected change"), ...ADMIN_ERRORS },
});

const approveRoute = createRoute({
  ...common,
  method: "post",
  path: "/v1/admin/pending/{model}/approve",
  summary: "Apply one proposed change, the one whose digest is sent, as an audited write of the row",
  request: { params: ModelParamSchema, ...jsonRequest(ApproveBodySchema) },
  responses: {
    200: json(ApprovalSchema, "Applied: the row written (or deleted), recorded in its history, the proposal gone"),
    ...NOT_FOUND,
    ...CONFLICT,
    ...BAD_BODY,
    ...ADMIN_ERRORS,
  },
});

const rejectRoute = createRoute({
  ...common,
  method: "post",
  path: "/v1/admin/pending/{model}/reject",
  summary: "Reject one proposed change; the sync will not propose it again",
  request: { params: ModelParamSchema, ...jsonRequest(RejectBodySchema) },
  responses: {
    200: json(ListedChangeSchema, "Rejected (kept, marked, with who and when)"),
    ...NOT_FOUND,
    409: json(ErrorSchema, "The proposal is unreadable, or not the one whose digest was sent"),
    ...BAD_BODY,
    ...ADMIN_ERRORS,
  },
});

const deleteRoute = createRoute({
  ...common,
  method: "delete",
  path: "/v1/admin/pending/{model}",
  summary: "Delete one pending entry, readable or not, recorded in its history",
  request: { params: ModelParamSchema },
  responses: {
    200: json(PendingDeletedSchema, "Deleted, and recorded in history:pending:<model>"),
    400: json(ErrorSchema, "The model name is not one KV keys accept"),
    404: json(ErrorSchema, "No pending entry for this model"),
    ...ADMIN_ERRORS,
  },
});

/**
 * /v1/admin/pending: the scheduled sync's proposals, each listed with its
 * digest. Approving one sends that digest back, so it applies the change
 * reviewed and no later one; it is an ordinary audited write of the row
 * (history records the admin), refused when the row changed since the
 * proposal. Rejecting keeps the proposal, marked, so the same change is not
 * proposed again. Deleting removes any entry, unreadable ones too, audited.
 *
 * @example
 * curl -X POST 127.0.0.1:8787/v1/admin/pending/gpt-5/approve -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/json' -d '{"digest":"4f1c0a3e…"}'
 */
export const adminPending = createApp()
  .openapi(listRoute, async (c) => {
    const { changes, invalid } = await listPending(c.env.PRICING);
    return c.json(
      {
        count: changes.length,
        changes: await withDigests(changes),
        invalid: invalid.map(({ model, detail }) => ({ model, detail })),
      },
      200,
    );
  })
  .openapi(approveRoute, async (c) => {
    const { model } = c.req.valid("param");
    const { digest } = c.req.valid("json");
    const change = await pendingOf(c.env.PRICING, model);
    await requireDigest(change, digest);
    if (change.status === "rejected")
      throw new ApiError(
        "conflict",
        `the change for ${model} was rejected; the next sync proposes again if the source still differs`,
      );
    const stored = await readStoredRow(c.env.PRICING, model);
    if (canonicalJson(stored?.value ?? null) !== canonicalJson(change.before)) {
      throw new ApiError(
        "conflict",
        `pricing:${model} changed since the sync proposed this change; reject it, and the next sync proposes against the new row`,
      );
    }
    const by = c.get("admin");
    // An approval is a person checking the price: that is the row's verified_at.
    const write =
      change.after === null
        ? await deletePricing(c.env.PRICING, model, by)
        : await putPricing(
            c.env.PRICING,
            model,
            { ...change.after, verified_at: new Date().toISOString().slice(0, 10) },
            by,
          );
    await withKvRetry(() => c.env.PRICING.delete(pendingKey(model)), pendingKey(model));
    forgetListings();
    return c.json({ model, kind: change.kind, digest, write }, 200);
  })
  .openapi(rejectRoute, async (c) => {
    const { model } = c.req.valid("param");
    const { note, digest } = c.req.valid("json");
    const change = await pendingOf(c.env.PRICING, model);
    if (digest !== undefined) await requireDigest(change, digest);
    const rejected: PendingChange = {
      ...change,
      status: "rejected",
      rejected_by: c.get("admin"),
      rejected_at: new Date().toISOString(),
      ...(note === undefined ? {} : { note }),
    };
    await withKvRetry(() => c.env.PRICING.put(pendingKey(model), JSON.stringify(rejected)), pendingKey(model));
    forgetListings();
    return c.json({ ...rejected, digest: await pendingDigest(rejected) }, 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { model } = c.req.valid("param");
    return c.json(await deletePending(c.env.PRICING, model, c.get("admin")), 200);
  });

// The change stored now must be the one the admin reviewed: else 409 naming both digests.
async function requireDigest(change: PendingChange, sent: string): Promise<void> {
  const current = await pendingDigest(change);
  if (current === sent) return;
  throw new ApiError(
    "conflict",
    `the pending change for ${change.model} is not the one reviewed: its digest is ${current}, the request sent ${sent}; read GET /v1/admin/pending again and review the change it lists`,
    [{ path: "digest", message: `is not the current change's digest (${current})` }],
  );
}

async function pendingOf(kv: KVNamespace, model: string): Promise<PendingChange> {
  const parsed = parsePending(await kv.get(pendingKey(model)));
  if (parsed === null) throw new ApiError("not_found", `no pending change for ${model}`);
  // A stored change that does not parse cannot be applied or rejected safely: an admin deletes it.
  if (!parsed.ok)
    throw new ApiError(
      "conflict",
      `the pending change for ${model} is unreadable (${parsed.detail}); delete it: DELETE /v1/admin/pending/${encodeURIComponent(model)}`,
    );
  return parsed.change;
}
