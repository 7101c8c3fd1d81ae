import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runPriceSync } from "../../../src/sync/scheduled";
import { adminCall } from "../../support/admin-helpers";
import { litellmSource, SOURCE_URL } from "../../fixtures/litellm-source";
import { postGate, putAlias, putRow, resetState } from "../../support/helpers";

const GPT5 = {
  input: 1.25,
  output: 10,
  cache_read: 0.125,
  aliases: ["gpt-5-2025-08-07"],
  provider: "openai",
  verified_at: "2026-11-01",
};
const O4_MINI = { input: 1.1, output: 4.4, cache_read: 0.275, provider: "openai" };

/** Runs one sync against the mocked source, as the Cron Trigger would. */
async function sync(): Promise<void> {
  const fetched = vi.spyOn(globalThis, "fetch").mockImplementation(async () => Response.json(litellmSource()));
  await runPriceSync(env.PRICING, new Date("2026-11-30T06:17:00Z"), fetch);
  fetched.mockRestore();
}

/** The digest the listing gives for a model's change, as an admin reviewing it reads it. */
async function listedDigest(model: string): Promise<string> {
  const body = await (await adminCall("GET", "/v1/admin/pending")).json<any>();
  return body.changes.find((change: any) => change.model === model)?.digest ?? "0".repeat(64);
}

/** Approves the change as listed now: the digest an admin reviewing the listing would send. */
const decide = async (model: string, body: Record<string, unknown> = {}) =>
  adminCall("POST", `/v1/admin/pending/${model}/approve`, { digest: await listedDigest(model), ...body });
const reject = (model: string, body: unknown = {}) => adminCall("POST", `/v1/admin/pending/${model}/reject`, body);

beforeEach(async () => {
  await resetState();
  await putRow("gpt-5", GPT5);
  await putAlias("gpt-5-2025-08-07", "gpt-5");
  await putRow("o4-mini", O4_MINI);
  await env.PRICING.put(
    "config:gate",
    JSON.stringify({ price_source_url: SOURCE_URL, price_source_providers: ["openai"] }),
  );
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
    expect(body.write.row).toMatchObject({
      input: 1.5,
      cache_read: 0.15,
      aliases: ["gpt-5-2025-08-07"],
      source: SOURCE_URL,
    });
    expect(body.write.row.verified_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const history = await (await adminCall("GET", "/v1/admin/pricing/gpt-5/history")).json<any>();
    expect(history.versions[0]).toMatchObject({ version: 1, action: "put", by: "ops-alice", before: GPT5 });
    expect(await env.PRICING.get("pending:gpt-5")).toBeNull();

    const decision = await (await postGate({ model_name: "gpt-5-2025-08-07", output_tokens: 20_000 })).json<any>();
    expect(decision.priced_as).toMatchObject({ model: "gpt-5", input: 1.5 });
    // Approving it again: nothing is pending any more.
    expect((await adminCall("POST", "/v1/admin/pending/gpt-5/approve", { digest: body.digest })).status).toBe(404);
  });

  it("adds an approved new model, and deletes an approved removal, each recorded in its history", async () => {
    expect((await decide("gpt-6.1-terra")).status).toBe(200);
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-6.1-terra")) as string)).toMatchObject({
      input: 1,
      output: 5,
      provider: "openai",
    });
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
    expect(body.error).toMatchObject({
      code: "conflict",
      message: expect.stringContaining("pricing:gpt-5 changed since the sync proposed"),
    });
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string).input).toBe(1.25);
  });

  it("keeps a rejected change, marked, refuses to approve it, and the next sync does not propose it again", async () => {
    const res = await reject("gpt-5", { note: "LiteLLM is ahead of the provider's page" });
    expect(res.status).toBe(200);
    expect(await res.json<any>()).toMatchObject({
      model: "gpt-5",
      status: "rejected",
      rejected_by: "ops-alice",
      note: "LiteLLM is ahead of the provider's page",
    });
    expect((await decide("gpt-5")).status).toBe(409);
    await sync();
    const again = JSON.parse((await env.PRICING.get("pending:gpt-5")) as string);
    expect(again.status).toBe("rejected");
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string).input).toBe(1.25);
  });

  it("answers 404 for a model with no proposal, and 400 naming an unknown body field, in the one error shape", async () => {
    const missing = await decide("gpt-9");
    expect(missing.status).toBe(404);
    expect(await missing.json<any>()).toEqual({
      error: { code: "not_found", message: "no pending change for gpt-9", issues: [] },
    });
    const bad = await reject("gpt-5", { nope: true });
    expect(bad.status).toBe(400);
    expect((await bad.json<any>()).error.issues[0]).toMatchObject({ path: "nope" });
  });

  it("needs the admin token", async () => {
    expect((await adminCall("GET", "/v1/admin/pending", undefined, null)).status).toBe(401);
    expect((await adminCall("POST", "/v1/admin/pending/gpt-5/approve", {}, null)).status).toBe(401);
  });
});

describe("an approval is bound to the change the admin reviewed", () => {
  it("lists each proposal with a digest of what approving it would do", async () => {
    const body = await (await adminCall("GET", "/v1/admin/pending")).json<any>();
    const digests = body.changes.map((change: any) => change.digest);
    for (const digest of digests) expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(digests).size).toBe(digests.length);
    // Listing again, or syncing the same source again, gives the same digests.
    await sync();
    expect(
      (await (await adminCall("GET", "/v1/admin/pending")).json<any>()).changes.map((change: any) => change.digest),
    ).toEqual(digests);
  });

  it("refuses (400, naming digest) an approval without one, and writes nothing", async () => {
    for (const body of [{}, { note: "looks right" }, { digest: "abc" }, { digest: 42 }]) {
      const res = await adminCall("POST", "/v1/admin/pending/gpt-5/approve", body);
      expect(res.status).toBe(400);
      const error = (await res.json<any>()).error;
      expect(error.code).toBe("invalid_request");
      expect(error.issues.map((issue: any) => issue.path)).toEqual(["digest"]);
    }
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string).input).toBe(1.25);
    expect(await env.PRICING.get("pending:gpt-5")).not.toBeNull();
  });

  it("refuses (409 conflict, naming both digests) an approval of a change the source changed after it was reviewed", async () => {
    const reviewed = await listedDigest("gpt-5");
    // The source changes to input 600, output 0 and the sync runs again: the proposal is another one now.
    const hostile = { input_cost_per_token: 6e-4, output_cost_per_token: 0, litellm_provider: "openai", mode: "chat" };
    const fetched = vi
      .spyOn(globalThis, "fetch")
      .mockImplementation(async () => Response.json(litellmSource({ "gpt-5": hostile, "gpt-5-2025-08-07": hostile })));
    await runPriceSync(env.PRICING, new Date("2026-11-30T12:17:00Z"), fetch);
    fetched.mockRestore();
    const current = await listedDigest("gpt-5");
    expect(current).not.toBe(reviewed);

    const res = await adminCall("POST", "/v1/admin/pending/gpt-5/approve", { digest: reviewed });
    expect(res.status).toBe(409);
    const error = (await res.json<any>()).error;
    expect(error.code).toBe("conflict");
    expect(error.message).toContain(reviewed);
    expect(error.message).toContain(current);
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string)).toEqual(GPT5);
    // Approving what is listed now is the admin's choice, made with its digest.
    expect((await adminCall("POST", "/v1/admin/pending/gpt-5/approve", { digest: current })).status).toBe(200);
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string)).toMatchObject({ input: 600, output: 0 });
  });

  it("refuses a rejection that sends a digest of another change, and takes one without a digest", async () => {
    const wrong = await listedDigest("o4-mini");
    expect((await reject("gpt-5", { digest: wrong })).status).toBe(409);
    expect(JSON.parse((await env.PRICING.get("pending:gpt-5")) as string).status).toBe("pending");
    const res = await reject("gpt-5");
    expect(res.status).toBe(200);
    expect((await res.json<any>()).digest).toBe(await listedDigest("gpt-5"));
  });
});

describe("DELETE /v1/admin/pending/{model}: any entry, readable or not, audited", () => {
  it("deletes an unreadable entry that approve and reject refuse, and records it in history:pending:<model>", async () => {
    const garbage = JSON.stringify({
      model: "gpt-5",
      kind: "changed",
      status: "pending",
      before: null,
      after: { input: -1 },
    });
    await env.PRICING.put("pending:gpt-5", garbage);
    const refused = await reject("gpt-5");
    expect(refused.status).toBe(409);
    expect((await refused.json<any>()).error.message).toContain("DELETE /v1/admin/pending/gpt-5");

    const res = await adminCall("DELETE", "/v1/admin/pending/gpt-5");
    expect(res.status).toBe(200);
    expect(await res.json<any>()).toEqual({ model: "gpt-5", deleted: JSON.parse(garbage), version: 1 });
    expect(await env.PRICING.get("pending:gpt-5")).toBeNull();
    const history = JSON.parse((await env.PRICING.get("history:pending:gpt-5")) as string);
    expect(history.entries.at(-1)).toMatchObject({
      version: 1,
      action: "delete",
      by: "ops-alice",
      before: JSON.parse(garbage),
      after: null,
    });
  });

  it("deletes a readable one and text that is not JSON, and answers 404 once it is gone", async () => {
    expect((await adminCall("DELETE", "/v1/admin/pending/o4-mini")).status).toBe(200);
    await env.PRICING.put("pending:o4-mini", "{ not json");
    const text = await adminCall("DELETE", "/v1/admin/pending/o4-mini");
    expect(await text.json<any>()).toMatchObject({ deleted: "{ not json", version: 2 });
    const missing = await adminCall("DELETE", "/v1/admin/pending/o4-mini");
    expect(missing.status).toBe(404);
    expect(await missing.json<any>()).toEqual({
      error: { code: "not_found", message: "no pending change for o4-mini", issues: [] },
    });
    expect((await adminCall("DELETE", "/v1/admin/pending/gpt-5", undefined, null)).status).toBe(401);
    expect((await adminCall("PUT", "/v1/admin/pending/gpt-5", {})).headers.get("allow")).toBe("DELETE");
  });
});
