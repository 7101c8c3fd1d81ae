import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { adminCall } from "../../support/admin-helpers";
import { OPUS, postGate, putAlias, putRow, resetState } from "../../support/helpers";
import injectedFault from "../../fixtures/injected-fault.json";

const GPT5 = { input: 1.25, output: 10, provider: "openai" };
const BIG = { model_name: "gpt-5", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => {
  vi.restoreAllMocks();
});

type KvOp = "put" | "delete";

/** Makes the real KV binding fail once, on the first `op` of `key`; every other call goes through. */
function failOnce(op: KvOp, key: string): void {
  const original = env.PRICING[op].bind(env.PRICING) as (...args: unknown[]) => Promise<unknown>;
  let failed = false;
  vi.spyOn(env.PRICING, op).mockImplementation(((name: string, ...rest: unknown[]) => {
    if (!failed && name === key) {
      failed = true;
      return Promise.reject(new Error(injectedFault.message));
    }
    return original(name, ...rest);
  }) as never);
}

const put = (model: string, row: unknown) => adminCall("PUT", `/v1/admin/pricing/${model}`, row);
const del = (model: string) => adminCall("DELETE", `/v1/admin/pricing/${model}`);
const versions = async (path: string) => (await (await adminCall("GET", `${path}/history`)).json<any>()).versions;
const stored = async (key: string) => env.PRICING.get(key);

describe("a retried PUT finishes the job", () => {
  const row = { ...GPT5, aliases: ["gpt-5-a", "gpt-5-b"] };
  for (const [op, key] of [
    ["put", "history:pricing:gpt-5"],
    ["put", "pricing:gpt-5"],
    ["put", "alias:gpt-5-b"],
  ] as const) {
    it(`when KV fails at the ${op} of ${key}: the row, its alias keys and one history entry`, async () => {
      failOnce(op, key);
      expect((await put("gpt-5", row)).status).toBe(500);
      vi.restoreAllMocks();
      const retry = await put("gpt-5", row);
      expect(retry.status).toBe(200);
      expect(await retry.json()).toMatchObject({ changed: true, version: 1 });
      expect(JSON.parse((await stored("pricing:gpt-5")) as string)).toEqual(row);
      expect(await stored("alias:gpt-5-a")).toBe("gpt-5");
      expect(await stored("alias:gpt-5-b")).toBe("gpt-5");
      expect((await versions("/v1/admin/pricing/gpt-5")).map((entry: any) => [entry.version, entry.action])).toEqual([
        [1, "put"],
      ]);
      // Once whole, the same PUT again changes and records nothing.
      expect(await (await put("gpt-5", row)).json()).toMatchObject({ changed: false, version: 1 });
    });
  }

  it("when KV fails removing an alias the new version drops, the retry removes it", async () => {
    await put("gpt-5", row);
    failOnce("delete", "alias:gpt-5-a");
    expect((await put("gpt-5", { ...GPT5, aliases: ["gpt-5-b"] })).status).toBe(500);
    vi.restoreAllMocks();
    expect(await (await put("gpt-5", { ...GPT5, aliases: ["gpt-5-b"] })).json()).toMatchObject({
      changed: true,
      version: 2,
    });
    expect(await stored("alias:gpt-5-a")).toBeNull();
    expect(await versions("/v1/admin/pricing/gpt-5")).toHaveLength(2);
  });
});

describe("a retried DELETE finishes the job", () => {
  it("removes the alias key left behind and answers 200, not 404; a third DELETE answers 404", async () => {
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-latest"] });
    failOnce("delete", "alias:gpt-5-latest");
    expect((await del("gpt-5")).status).toBe(500);
    vi.restoreAllMocks();
    const retry = await del("gpt-5");
    expect(retry.status).toBe(200);
    expect(await retry.json()).toMatchObject({ changed: true, version: 2 });
    expect(await stored("alias:gpt-5-latest")).toBeNull();
    expect((await (await postGate({ ...BIG, model_name: "gpt-5-latest" })).json<any>()).reason_code).toBe("unpriced");
    expect((await versions("/v1/admin/pricing/gpt-5")).map((entry: any) => entry.action)).toEqual(["delete", "put"]);
    expect((await del("gpt-5")).status).toBe(404);
  });

  it("when KV fails at the row, the retry deletes it and records the delete once", async () => {
    await put("gpt-5", GPT5);
    failOnce("delete", "pricing:gpt-5");
    expect((await del("gpt-5")).status).toBe(500);
    vi.restoreAllMocks();
    expect((await del("gpt-5")).status).toBe(200);
    expect(await stored("pricing:gpt-5")).toBeNull();
    expect(await versions("/v1/admin/pricing/gpt-5")).toHaveLength(2);
  });
});

describe("a retried rollback and config write finish the job", () => {
  it("a rollback interrupted at the row is finished by its retry, recorded once", async () => {
    await put("gpt-5", { ...GPT5, input: 2 });
    await put("gpt-5", { ...GPT5, input: 3 });
    failOnce("put", "pricing:gpt-5");
    expect((await adminCall("POST", "/v1/admin/pricing/gpt-5/rollback", { version: 1 })).status).toBe(500);
    vi.restoreAllMocks();
    const retry = await adminCall("POST", "/v1/admin/pricing/gpt-5/rollback", { version: 1 });
    expect(await retry.json()).toMatchObject({ changed: true, version: 3, row: { input: 2 } });
    expect(JSON.parse((await stored("pricing:gpt-5")) as string).input).toBe(2);
    expect((await versions("/v1/admin/pricing/gpt-5")).map((entry: any) => entry.action)).toEqual([
      "rollback",
      "put",
      "put",
    ]);
  });

  it("a config PUT interrupted at the config key is finished by its retry, recorded once", async () => {
    failOnce("put", "config:gate");
    expect((await adminCall("PUT", "/v1/admin/config", { p_recall: 0.2 })).status).toBe(500);
    vi.restoreAllMocks();
    expect(await (await adminCall("PUT", "/v1/admin/config", { p_recall: 0.2 })).json()).toMatchObject({
      changed: true,
      version: 1,
    });
    expect(JSON.parse((await stored("config:gate")) as string)).toEqual({ p_recall: 0.2 });
    expect(await versions("/v1/admin/config")).toHaveLength(1);
  });
});

describe("aliases come from the alias keys", () => {
  it("DELETE of a corrupt row removes the alias keys that point at it", async () => {
    await putRow("gpt-5", "{not json");
    await putAlias("gpt-5-latest", "gpt-5");
    expect((await del("gpt-5")).status).toBe(200);
    expect(await stored("alias:gpt-5-latest")).toBeNull();
  });

  it("PUT over an invalid row removes the alias keys the new row does not list", async () => {
    await putRow("gpt-5", JSON.stringify({ input: -1, aliases: ["gpt-5-old"] }));
    await putAlias("gpt-5-old", "gpt-5");
    await putAlias("gpt-5-keep", "gpt-5");
    expect((await put("gpt-5", { ...GPT5, aliases: ["gpt-5-keep"] })).status).toBe(200);
    expect(await stored("alias:gpt-5-old")).toBeNull();
    expect(await stored("alias:gpt-5-keep")).toBe("gpt-5");
  });

  it("DELETE of an absent row whose alias keys remain removes them", async () => {
    await putAlias("gpt-5-latest", "gpt-5");
    expect((await del("gpt-5")).status).toBe(200);
    expect(await stored("alias:gpt-5-latest")).toBeNull();
  });
});

describe("GET and DELETE /v1/admin/aliases", () => {
  it("lists every alias key and flags the stray ones with the reason", async () => {
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-latest"] });
    await putAlias("gpt-4-old", "gpt-4");
    await putAlias("gpt-5-unlisted", "gpt-5");
    const body = await (await adminCall("GET", "/v1/admin/aliases")).json<any>();
    expect(body).toMatchObject({ count: 3, stray: 2 });
    expect(body.aliases).toEqual([
      { alias: "gpt-4-old", target: "gpt-4", stray: "gpt-4 has no pricing row" },
      { alias: "gpt-5-latest", target: "gpt-5", stray: null },
      { alias: "gpt-5-unlisted", target: "gpt-5", stray: "gpt-5's row does not list gpt-5-unlisted" },
    ]);
  });

  it("deletes a stray alias that blocked a row, records it, and the row can then be written", async () => {
    await putAlias("gpt-5", "gpt-4");
    const blocked = await put("gpt-5", GPT5);
    expect(blocked.status).toBe(400);
    expect((await blocked.json<any>()).error.message).toContain("DELETE /v1/admin/aliases/{alias}");
    const res = await adminCall("DELETE", "/v1/admin/aliases/gpt-5");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ alias: "gpt-5", target: "gpt-4", version: 1 });
    expect(await stored("history:alias:gpt-5")).toContain('"action":"delete"');
    expect((await put("gpt-5", GPT5)).status).toBe(200);
  });

  it("refuses to delete an alias its row still lists, naming the field", async () => {
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-latest"] });
    const res = await adminCall("DELETE", "/v1/admin/aliases/gpt-5-latest");
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues).toEqual([{ path: "alias", message: "is listed by gpt-5's row" }]);
    expect(await stored("alias:gpt-5-latest")).toBe("gpt-5");
  });

  it("answers 404 for an alias key that does not exist, and 400 for a bad name", async () => {
    expect((await adminCall("DELETE", "/v1/admin/aliases/nope")).status).toBe(404);
    expect((await adminCall("DELETE", "/v1/admin/aliases/bad%20name")).status).toBe(400);
  });

  it("never prices through a stray alias (its target does not name it back), and forgets it at once when deleted", async () => {
    await putRow("gpt-5", GPT5);
    await putAlias("gpt-5-old", "gpt-5");
    const stray = await (await postGate({ ...BIG, model_name: "gpt-5-old" })).json<any>();
    expect(stray.fire).toBe(false);
    expect(stray.priced_as).toBeNull();
    expect((await adminCall("DELETE", "/v1/admin/aliases/gpt-5-old")).status).toBe(200);
    expect((await (await postGate({ ...BIG, model_name: "gpt-5-old" })).json<any>()).reason_code).toBe("unpriced");
  });
});

describe("reads survive a corrupt history", () => {
  it("GET of a row whose history is corrupt answers the row and flags the history", async () => {
    await putRow("gpt-5", GPT5);
    await env.PRICING.put("history:pricing:gpt-5", "{corrupt");
    const res = await adminCall("GET", "/v1/admin/pricing/gpt-5");
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({ model: "gpt-5", row: GPT5, version: null });
    expect(body.history_problem).toContain("history:pricing:gpt-5 is corrupt");
  });
});
