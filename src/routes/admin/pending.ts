import { createRoute, z } from "@hono/zod-openapi";
import { ADMIN_SECURITY } from "../../auth/admin";
import { ApiError } from "../../http/errors";
import { bodyErrors, ErrorSchema, json, jsonRequest } from "../../http/schema";
import { pendingKey } from "../../store/keys";
import { forgetListings } from "../../store/listing";
import { listPending, parsePending, PendingChangeSchema, type PendingChange } from "../../sync/pending";
import { canonicalJson } from "../../writes/canonical";
import { withKvRetry } from "../../writes/kv-retry";
import { deletePricing, putPricing, readStoredRow } from "../../writes/rows";
import { createApp } from "../app";
import { ADMIN_ERRORS, ModelParamSchema, WriteOutcomeSchema } from "./schema";

const common = { tags: ["admin"], security: ADMIN_SECURITY };
const BAD_BODY = bodyErrors("The body is not JSON, or holds an unknown field; the error names it");
const NOT_FOUND = { 404: json(ErrorSchema, "No pending change for this model") };
const CONFLICT = {
  409: json(ErrorSchema, "The change was rejected, or the row changed since the sync proposed it: reject it and let the next sync propose again"),
};

/** The body of an approval or a rejection: an optional note, kept with a rejection. */
const DecisionBodySchema = z.strictObject({ note: z.string().max(500).optional() }).openapi("PendingDecision");

const PendingListSchema = z
  .object({
    count: z.number().int(),
    changes: z.array(PendingChangeSchema).openapi({ description: "Every stored change, pending or rejected, by model" }),
    invalid: z.array(z.object({ model: z.string(), detail: z.string() })).openapi({ description: "Stored changes that do not parse" }),
  })
  .openapi("PendingList");

const ApprovalSchema = z
  .object({ model: z.string(), kind: PendingChangeSchema.shape.kind, write: WriteOutcomeSchema })
  .openapi("PendingApproval");

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
  summary: "Apply one proposed change, as an audited write of the row",
  request: { params: ModelParamSchema, ...jsonRequest(DecisionBodySchema) },
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
  request: { params: ModelParamSchema, ...jsonRequest(DecisionBodySchema) },
  responses: { 200: json(PendingChangeSchema, "Rejected (kept, marked, with who and when)"), ...NOT_FOUND, ...BAD_BODY, ...ADMIN_ERRORS },
});

/**
 * /v1/admin/pending: the scheduled sync's proposals. Approving one is an
 * ordinary audited write of the row (history records the admin); it
 * refuses when the row changed since the proposal. Rejecting keeps the
 * proposal, marked, so the same change is not proposed again.
 *
 * @example
 * curl -X POST 127.0.0.1:8787/v1/admin/pending/gpt-5/approve -H "authorization: Bearer $TOKEN" \
 *   -H 'content-type: application/json' -d '{}'
 */
export const adminPending = createApp()
  .openapi(listRoute, async (c) => {
    const { changes, invalid } = await listPending(c.env.PRICING);
    return c.json({ count: changes.length, changes, invalid }, 200);
  })
  .openapi(approveRoute, async (c) => {
    const { model } = c.req.valid("param");
    const change = await pendingOf(c.env.PRICING, model);
    if (change.status === "rejected") throw new ApiError("conflict", `the change for ${model} was rejected; the next sync proposes again if the source still differs`);
    const stored = await readStoredRow(c.env.PRICING, model);
    if (canonicalJson(stored?.value ?? null) !== canonicalJson(change.before)) {
      throw new ApiError("conflict", `pricing:${model} changed since the sync proposed this change; reject it, and the next sync proposes against the new row`);
    }
    const by = c.get("admin");
    // An approval is a person checking the price: that is the row's verified_at.
    const write =
      change.after === null
        ? await deletePricing(c.env.PRICING, model, by)
        : await putPricing(c.env.PRICING, model, { ...change.after, verified_at: new Date().toISOString().slice(0, 10) }, by);
    await withKvRetry(() => c.env.PRICING.delete(pendingKey(model)), pendingKey(model));
    forgetListings();
    return c.json({ model, kind: change.kind, write }, 200);
  })
  .openapi(rejectRoute, async (c) => {
    const { model } = c.req.valid("param");
    const { note } = c.req.valid("json");
    const change = await pendingOf(c.env.PRICING, model);
    const rejected: PendingChange = { ...change, status: "rejected", rejected_by: c.get("admin"), rejected_at: new Date().toISOString(), ...(note === undefined ? {} : { note }) };
    await withKvRetry(() => c.env.PRICING.put(pendingKey(model), JSON.stringify(rejected)), pendingKey(model));
    forgetListings();
    return c.json(rejected, 200);
  });

async function pendingOf(kv: KVNamespace, model: string): Promise<PendingChange> {
  const parsed = parsePending(await kv.get(pendingKey(model)));
  if (parsed === null) throw new ApiError("not_found", `no pending change for ${model}`);
  // A stored change that does not parse cannot be applied or rejected safely: ops delete the key.
  if (!parsed.ok) throw new ApiError("conflict", `the pending change for ${model} is unreadable (${parsed.detail}); delete ${pendingKey(model)} with wrangler`);
  return parsed.change;
}
