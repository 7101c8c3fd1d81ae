import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runPriceSync } from "../src/sync/scheduled";
import { adminCall } from "./admin-helpers";
import { litellmSource, SOURCE_URL } from "./fixtures/litellm-source";
import { postGate, putAlias, putRow, resetState } from "./helpers";

const GPT5 = { input: 1.25, output: 10, cache_read: 0.125, aliases: ["gpt-5-2025-08-07"], provider: "openai", verified_at: "2026-11-01" };
const O4_MINI = { input: 1.1, output: 4.4, cache_read: 0.275, provider: "openai" };

/** Runs one sync against the mocked source, as the Cron Trigger would. */
async function sync(): Promise<void> {
  const fetched = vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json(litellmSource()));
  await runPriceSync(env.PRICING, new Date("2026-11-30T06:17:00Z"), fetch);
  fetched.mockRestore();
}

const decide = (model: string, body: unknown = {}) => adminCall("POST", `/v1/admin/pending/${model}/approve`, body);
const reject = (model: string, body: unknown = {}) => adminCall("POST", `/v1/admin/pending/${model}/reject`, body);

beforeEach(async () => {
  await resetState();
  await putRow("gpt-5", GPT5);
  await putAlias("gpt-5-2025-08-07", "gpt-5");
  await putRow("o4-mini", O4_MINI);
  await env.PRICING.put("config:gate", JSON.stringify({ price_source_url: SOURCE_URL, price_source_providers: ["openai"] }));
  await sync();
});
afterEach(() => vi.restoreAllMocks());

describe("/v1/admin/pending: the sync's proposals, approved or rejected one by one", () => {
  it("lists every proposal with its fields, source and time", async () => {
    const res = await adminCall("GET", "/v1/admin/pending");
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body.count).toBe(3);
    expect(body.changes.map((change: any) => `${change.model}:${change.kind}:${change.status}`)).toEqual([
      "gpt-5:changed:pending",
      "gpt-6.1-terra:added:pending",
      "o4-mini:removed:pending",
    ]);
    expect(body.invalid).toEqual([]);
  });

  it("applies an approved price change as an audited write, with history, and the gate prices with it at once", async () => {
    const res = await decide("gpt-5");
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({ model: "gpt-5", kind: "changed", write: { changed: true, version: 1 } });
    expect(body.write.row).toMatchObject({ input: 1.5, cache_read: 0.15, aliases: ["gpt-5-2025-08-07"], source: SOURCE_URL });
    expect(body.write.row.verified_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const history = await (await adminCall("GET", "/v1/admin/pricing/gpt-5/history")).json<any>();
    expect(history.versions[0]).toMatchObject({ version: 1, action: "put", by: "ops-alice", before: GPT5 });
    expect(await env.PRICING.get("pending:gpt-5")).toBeNull();

    const decision = await (await postGate({ model_name: "gpt-5-2025-08-07", output_tokens: 20_000 })).json<any>();
    expect(decision.priced_as).toMatchObject({ model: "gpt-5", input: 1.5 });
    // Approving it again: nothing is pending any more.
    expect((await decide("gpt-5")).status).toBe(404);
  });

  it("adds an approved new model, and deletes an approved removal, each recorded in its history", async () => {
    expect((await decide("gpt-6.1-terra")).status).toBe(200);
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-6.1-terra")) as string)).toMatchObject({ input: 1, output: 5, provider: "openai" });
    const removed = await decide("o4-mini");
    expect(removed.status).toBe(200);
    expect(await removed.json<any>()).toMatchObject({ kind: "removed", write: { row: null, changed: true } });
    expect(await env.PRICING.get("pricing:o4-mini")).toBeNull();
    const history = await (await adminCall("GET", "/v1/admin/pricing/o4-mini/history")).json<any>();
    expect(history.versions[0]).toMatchObject({ action: "delete", before: O4_MINI, after: null });
  });

  it("refuses (409) an approval when the row changed since the proposal, and writes nothing", async () => {
    await adminCall("PUT", "/v1/admin/pricing/gpt-5", { ...GPT5, output: 11 });
    const res = await decide("gpt-5");
    expect(res.status).toBe(409);
    const body = await res.json<any>();
    expect(body.error).toMatchObject({ code: "conflict", message: expect.stringContaining("pricing:gpt-5 changed since the sync proposed") });
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string).input).toBe(1.25);
  });

  it("keeps a rejected change, marked, refuses to approve it, and the next sync does not propose it again", async () => {
    const res = await reject("gpt-5", { note: "LiteLLM is ahead of the provider's page" });
    expect(res.status).toBe(200);
    expect(await res.json<any>()).toMatchObject({ model: "gpt-5", status: "rejected", rejected_by: "ops-alice", note: "LiteLLM is ahead of the provider's page" });
    expect((await decide("gpt-5")).status).toBe(409);
    await sync();
    const again = JSON.parse((await env.PRICING.get("pending:gpt-5")) as string);
    expect(again.status).toBe("rejected");
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string).input).toBe(1.25);
  });

  it("answers 404 for a model with no proposal, and 400 naming an unknown body field, in the one error shape", async () => {
    const missing = await decide("gpt-9");
    expect(missing.status).toBe(404);
    expect(await missing.json<any>()).toEqual({ error: { code: "not_found", message: "no pending change for gpt-9", issues: [] } });
    const bad = await reject("gpt-5", { nope: true });
    expect(bad.status).toBe(400);
    expect((await bad.json<any>()).error.issues[0]).toMatchObject({ path: "nope" });
  });

  it("needs the admin token", async () => {
    expect((await adminCall("GET", "/v1/admin/pending", undefined, null)).status).toBe(401);
    expect((await adminCall("POST", "/v1/admin/pending/gpt-5/approve", {}, null)).status).toBe(401);
  });
});
