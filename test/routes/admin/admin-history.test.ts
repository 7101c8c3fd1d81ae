import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { adminCall } from "../../support/admin-helpers";
import { EXAMPLE_A, OPUS, postGate, putRow, resetState } from "../../support/helpers";
import { BOB_TOKEN } from "../../support/secrets";

const SEEDED = { input: 1.25, output: 10, provider: "openai" };
const BIG = { ...EXAMPLE_A, model_name: "gpt-5" };

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await putRow("gpt-5", SEEDED);
});

const put = (row: unknown, token?: string) => adminCall("PUT", "/v1/admin/pricing/gpt-5", row, token);
const history = async () => (await adminCall("GET", "/v1/admin/pricing/gpt-5/history")).json<any>();
const rollback = (body: unknown) => adminCall("POST", "/v1/admin/pricing/gpt-5/rollback", body);
const pricedInput = async () => (await (await postGate(BIG)).json<any>()).priced_as?.input ?? null;

describe("GET /v1/admin/pricing/:model/history", () => {
  it("keeps every earlier version with who, when, before and after, newest first", async () => {
    const started = Date.now();
    await put({ ...SEEDED, input: 2 });
    await put({ ...SEEDED, input: 3 }, BOB_TOKEN);
    await adminCall("DELETE", "/v1/admin/pricing/gpt-5");
    const body = await history();
    expect(body).toMatchObject({ subject: "pricing:gpt-5", current_version: 3, earliest_restorable: 0 });
    expect(body.versions.map((entry: any) => [entry.version, entry.action, entry.by])).toEqual([
      [3, "delete", "ops-alice"],
      [2, "put", "ops-bob"],
      [1, "put", "ops-alice"],
    ]);
    expect(body.versions[2].before).toEqual(SEEDED);
    expect(body.versions[2].after).toEqual({ ...SEEDED, input: 2 });
    expect(body.versions[0].after).toBeNull();
    for (const entry of body.versions) {
      expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(started - 1000);
      expect(Date.parse(entry.at)).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  it("keeps a corrupt row's text as it was, so it can be seen", async () => {
    await putRow("gpt-5", "{not json");
    await put(SEEDED);
    expect((await history()).versions[0].before).toBe("{not json");
  });

  it("is empty for a row never changed through the API", async () => {
    expect(await history()).toMatchObject({ current_version: 0, earliest_restorable: null, versions: [] });
  });
});

describe("POST /v1/admin/pricing/:model/rollback", () => {
  it("restores a version, records the rollback as a version, and serves it at once", async () => {
    await put({ ...SEEDED, input: 2 });
    await put({ ...SEEDED, input: 3 });
    expect(await pricedInput()).toBe(3);
    const res = await rollback({ version: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ changed: true, version: 3, row: { input: 2 } });
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string).input).toBe(2);
    expect(await pricedInput()).toBe(2);
    const latest = (await history()).versions[0];
    expect(latest).toMatchObject({ version: 3, action: "rollback", rolled_back_to: 1, by: "ops-alice" });
    expect(latest.before.input).toBe(3);
  });

  it("restores version 0: the row as it stood before the first change through the API", async () => {
    await put({ ...SEEDED, input: 9 });
    await rollback({ version: 0 });
    expect(JSON.parse((await env.PRICING.get("pricing:gpt-5")) as string)).toEqual(SEEDED);
  });

  it("restores a deleted row, aliases included, and undoes a delete", async () => {
    await put({ ...SEEDED, aliases: ["gpt-5-latest"] });
    await adminCall("DELETE", "/v1/admin/pricing/gpt-5");
    expect(await pricedInput()).toBeNull();
    await rollback({ version: 1 });
    expect(await env.PRICING.get("alias:gpt-5-latest")).toBe("gpt-5");
    expect(await pricedInput()).toBe(1.25);
  });

  it("rolls back to an absent row by deleting it", async () => {
    await resetState();
    await put(SEEDED);
    await rollback({ version: 0 });
    expect(await env.PRICING.get("pricing:gpt-5")).toBeNull();
    expect((await history()).versions[0]).toMatchObject({ action: "rollback", rolled_back_to: 0, after: null });
  });

  it("answers 404 naming the versions that can be restored for a version not in the history", async () => {
    await put({ ...SEEDED, input: 2 });
    const res = await rollback({ version: 7 });
    expect(res.status).toBe(404);
    expect((await res.json<any>()).error.message).toContain("versions 0–1 can be restored");
  });

  it("answers 400 naming the field for a bad body", async () => {
    for (const body of [{}, { version: -1 }, { version: 1.5 }, { version: "1" }, { version: 1, force: true }]) {
      const res = await rollback(body);
      expect(res.status).toBe(400);
      const issues = (await res.json<any>()).error.issues;
      expect(issues.map((issue: any) => issue.path)).toContain(body && "force" in body ? "force" : "version");
    }
  });

  it("refuses to restore a version that was never a valid row", async () => {
    await putRow("gpt-5", '{"input": -5, "output": 1}');
    await put(SEEDED);
    const res = await rollback({ version: 0 });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.message).toContain("not a valid row");
  });
});
