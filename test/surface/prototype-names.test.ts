import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { adminCall } from "../support/admin-helpers";
import { call, OPUS, postGate, postJson, putRow, resetState } from "../support/helpers";

// Names that an object lookup would find on Object.prototype.
const INHERITED = ["constructor", "toString", "hasOwnProperty", "valueOf"];
const ROW = { input: 2, output: 8, provider: "test" };
const BIG = { output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("names that shadow Object.prototype", () => {
  it.each(["__proto__", ...INHERITED])("answers 404, not 500, for a docs asset named %s", async (name) => {
    const res = await call(`/docs/assets/${name}`);
    expect(res.status).toBe(404);
    expect((await res.json<any>()).error.code).toBe("not_found");
  });

  it("the gate refuses a model named __proto__ with a 400 naming model_name, never a 500", async () => {
    const res = await postGate({ ...BIG, model_name: "__proto__" });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues).toContainEqual({ path: "model_name", message: "is a reserved name" });
  });

  it.each(INHERITED)("the gate answers unpriced, never 500, for a model named %s", async (name) => {
    const res = await postGate({ ...BIG, model_name: name });
    expect(res.status).toBe(200);
    expect((await res.json<any>()).reason_code).toBe("unpriced");
    const batch = await (await postJson("/v1/gate/batch", { items: [{ ...BIG, model_name: name }] })).json<any>();
    expect(batch.decisions[0].reason_code).toBe("unpriced");
  });

  it.each(INHERITED)("a row named %s is written, listed, read, priced and deleted like any other", async (name) => {
    expect((await adminCall("PUT", `/v1/admin/pricing/${name}`, ROW)).status).toBe(200);
    const list = await (await adminCall("GET", "/v1/admin/pricing")).json<any>();
    expect(Object.hasOwn(list.models, name)).toBe(true);
    expect(list.models[name]).toEqual(ROW);
    expect((await (await adminCall("GET", `/v1/admin/pricing/${name}`)).json<any>()).row).toEqual(ROW);
    expect((await (await postGate({ ...BIG, model_name: name })).json<any>()).priced_as.model).toBe(name);
    expect((await adminCall("DELETE", `/v1/admin/pricing/${name}`)).status).toBe(200);
    expect((await (await postGate({ ...BIG, model_name: name })).json<any>()).reason_code).toBe("unpriced");
  });

  it.each(INHERITED)("an alias named %s prices its model and shows in the alias listing", async (alias) => {
    expect((await adminCall("PUT", "/v1/admin/pricing/real-model", { ...ROW, aliases: [alias] })).status).toBe(200);
    expect((await (await postGate({ ...BIG, model_name: alias })).json<any>()).priced_as.model).toBe("real-model");
    const list = await (await adminCall("GET", "/v1/admin/pricing")).json<any>();
    expect(Object.hasOwn(list.aliases, alias)).toBe(true);
    const aliases = await (await adminCall("GET", "/v1/admin/aliases")).json<any>();
    expect(aliases.aliases).toContainEqual({ alias, target: "real-model", stray: null });
  });

  it("refuses __proto__ as a row or alias name through the admin API, naming the field", async () => {
    const asRow = await adminCall("PUT", "/v1/admin/pricing/__proto__", ROW);
    expect(asRow.status).toBe(400);
    expect((await asRow.json<any>()).error.issues).toContainEqual({ path: "model", message: "is a reserved name" });
    const asAlias = await adminCall("PUT", "/v1/admin/pricing/real-model", { ...ROW, aliases: ["__proto__"] });
    expect((await asAlias.json<any>()).error.issues).toContainEqual({
      path: "aliases.0",
      message: "is a reserved name",
    });
  });

  it("lists a row stored as __proto__ straight in KV as an own key, not lost", async () => {
    await env.PRICING.put("pricing:__proto__", JSON.stringify(ROW));
    const list = await (await adminCall("GET", "/v1/admin/pricing")).json<any>();
    expect(list.count).toBe(2);
    expect(Object.hasOwn(list.models, "__proto__")).toBe(true);
  });
});
