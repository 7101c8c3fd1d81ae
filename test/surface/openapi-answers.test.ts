import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/http/guards";
import { WORKED_EXAMPLE_P1 } from "../../src/routes/plan/schema";
import { callWithEnv } from "../support/admin-helpers";
import { bearer, call, EXAMPLE_A, jsonInit, OPUS, postGate, postJson, putRow, resetState } from "../support/helpers";
import { undeclaredKeys as undeclaredIn, validate as validateIn, type Json } from "../support/openapi-doc";
import { ALICE_TOKEN, TEST_GATE_API_KEYS } from "../support/secrets";

// The answers the app gives, held to the OpenAPI document it serves: every
// error in the one documented shape, every 200 described completely, and the
// Swagger UI page. The document's own checks are in ./openapi.test.ts.

let doc: Json;

beforeAll(async () => {
  const res = await call("/openapi.json");
  expect(res.status).toBe(200);
  doc = await res.json<Json>();
});
beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

const validate = (schema: unknown, value: unknown) => validateIn(doc, schema, value);
const undeclaredKeys = (value: unknown, schema: Json) => undeclaredIn(doc, value, schema);

describe("the documented error shape", () => {
  const gateJson = (body: unknown): RequestInit => jsonInit("POST", body);
  const admin = (method: string, body?: unknown): RequestInit =>
    body === undefined ? { method, headers: bearer(ALICE_TOKEN) } : jsonInit(method, body, bearer(ALICE_TOKEN));
  // [what, documented operation, status, the real request]
  const cases: [string, string, number, () => Promise<Response>][] = [
    [
      "a field out of range",
      "post /v1/gate",
      400,
      () => postGate({ model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: -1 }),
    ],
    [
      "an unknown field",
      "post /v1/gate",
      400,
      () => postGate({ model_name: "claude-opus-4-6", output_tokens: 20_000, horizon_turns: 4 }),
    ],
    ["a body that is not JSON", "post /v1/gate", 400, () => postGate("{not json")],
    [
      "a body that is too large",
      "post /v1/gate",
      413,
      () => postGate({ model_name: "claude-opus-4-6", output_tokens: 1, pad: "x".repeat(MAX_BODY_BYTES) }),
    ],
    [
      "a body that is not JSON by type",
      "post /v1/gate",
      415,
      () => call("/v1/gate", { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" }),
    ],
    [
      "a missing gate key",
      "post /v1/gate",
      401,
      () =>
        callWithEnv({ GATE_API_KEYS: TEST_GATE_API_KEYS }, "/v1/gate", gateJson({ model_name: "m", output_tokens: 1 })),
    ],
    [
      "a curve point count out of range",
      "post /v1/gate/curve",
      400,
      () =>
        postJson("/v1/gate/curve", {
          request: { model_name: "claude-opus-4-6", output_tokens: 20_000 },
          points: 1_000,
        }),
    ],
    [
      "a curve of a bad request",
      "post /v1/gate/curve",
      400,
      () => postJson("/v1/gate/curve", { request: { model_name: "claude-opus-4-6", output_tokens: -1 } }),
    ],
    [
      "a plan's repeated id",
      "post /v1/plan",
      400,
      () =>
        postJson("/v1/plan", {
          model_name: "m",
          segments: [
            { id: "a", tokens: 1 },
            { id: "a", tokens: 2 },
          ],
        }),
    ],
    ["a missing admin token", "get /v1/admin/pricing", 401, () => call("/v1/admin/pricing")],
    [
      "a negative price",
      "put /v1/admin/pricing/{model}",
      400,
      () => call("/v1/admin/pricing/new-model", admin("PUT", { input: -1, output: 2 })),
    ],
    [
      "a model without a row",
      "get /v1/admin/pricing/{model}",
      404,
      () => call("/v1/admin/pricing/no-such-model", admin("GET")),
    ],
    [
      "an outcome report over 100 items",
      "post /v1/outcomes",
      400,
      () => call("/v1/outcomes", gateJson({ items: Array(101).fill({}) })),
    ],
    ["a session report that is not {items}", "post /v1/sessions", 400, () => call("/v1/sessions", gateJson([]))],
    ["a savings window that is not a date", "get /v1/savings", 400, () => call("/v1/savings?from=yesterday")],
    [
      "an admin savings report without a tenant",
      "get /v1/admin/savings",
      400,
      () => call("/v1/admin/savings", admin("GET")),
    ],
  ];

  it.each(cases)("is what the app answers for %s", async (_what, operation, status, send) => {
    const [method = "", path = ""] = operation.split(" ");
    const documented = doc.paths[path]?.[method]?.responses?.[String(status)];
    expect(documented, `${operation} documents ${status}`).toBeDefined();
    const res = await send();
    expect(res.status).toBe(status);
    const body = await res.json<Json>();
    const schema = documented.content["application/json"].schema;
    expect(validate(schema, body)).toEqual([]);
    expect(undeclaredKeys(body, schema)).toEqual([]);
    expect(body.error.message.length).toBeGreaterThan(0);
  });

  it("would catch an answer the document does not describe", () => {
    const schema = doc.paths["/v1/gate"].post.responses["400"].content["application/json"].schema;
    expect(validate(schema, { error: { code: "invalid_request", message: "m" } })).not.toEqual([]);
    expect(undeclaredKeys({ error: { code: "c", message: "m", issues: [], field: "horizon" } }, schema)).toEqual([
      "$.error.field",
    ]);
  });

  it("describes the 200 answer completely", async () => {
    const res = await postGate(EXAMPLE_A);
    const body = await res.json<Json>();
    const schema = doc.paths["/v1/gate"].post.responses["200"].content["application/json"].schema;
    expect(validate(schema, body)).toEqual([]);
    expect(undeclaredKeys(body, schema).filter((key) => !key.startsWith("$.priced_as."))).toEqual([]);
  });

  it("describes the curve's 200 answer completely", async () => {
    const request = {
      model_name: "claude-opus-4-6",
      output_tokens: 20_000,
      pricing_mode: "cache_aware",
      context_tokens: 60_000,
    };
    const res = await postJson("/v1/gate/curve", { request, points: 5 });
    expect(res.status).toBe(200);
    const body = await res.json<Json>();
    const schema = doc.paths["/v1/gate/curve"].post.responses["200"].content["application/json"].schema;
    expect(validate(schema, body)).toEqual([]);
    const priced = (key: string) => key.startsWith("$.priced_as.") || key.startsWith("$.decision.priced_as.");
    expect(undeclaredKeys(body, schema).filter((key) => !priced(key))).toEqual([]);
  });

  it("describes the plan's 200 answer completely", async () => {
    const res = await postJson("/v1/plan", WORKED_EXAMPLE_P1);
    const body = await res.json<Json>();
    expect(body.reason_code).toBe("plan_positive");
    const schema = doc.paths["/v1/plan"].post.responses["200"].content["application/json"].schema;
    expect(validate(schema, body)).toEqual([]);
    expect(undeclaredKeys(body, schema).filter((key) => !key.startsWith("$.priced_as."))).toEqual([]);
  });
});

describe("the outcomes ledger's answers", () => {
  const schemaOf = (path: string, method: string) =>
    doc.paths[path][method].responses["200"].content["application/json"].schema;
  const complete = (body: unknown, schema: Json) => {
    expect(validate(schema, body)).toEqual([]);
    expect(undeclaredKeys(body, schema)).toEqual([]);
  };

  it("are described completely: reports, their item results, and the savings report", async () => {
    const decision = await (
      await postGate({ model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: "doc-1", tool_name: "grep" })
    ).json<Json>();
    const outcomes = await call("/v1/outcomes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        items: [{ decision_id: decision.decision_id, turns_after: 3, recalled: false }, { decision_id: "x" }],
      }),
    });
    complete(await outcomes.json(), schemaOf("/v1/outcomes", "post"));
    const session = {
      session_id: "doc-1",
      model_name: "claude-opus-4-6",
      turns: 3,
      usage: { input_tokens: 10, output_tokens: 10 },
    };
    const sessions = await call("/v1/sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items: [session] }),
    });
    complete(await sessions.json(), schemaOf("/v1/sessions", "post"));
    const savings = await (await call("/v1/savings?tool_name=grep")).json<Json>();
    expect(savings.series.length).toBeGreaterThan(0);
    complete(savings, schemaOf("/v1/savings", "get"));
  });
});

describe("GET /docs", () => {
  it("serves Swagger UI that loads only this worker's assets", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "");
    expect(refs.filter((ref) => /^(https?:)?\/\//.test(ref))).toEqual([]);
    const assets = refs.filter((ref) => ref.startsWith("/docs/assets/"));
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      const file = await call(asset);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get("content-type")).toMatch(asset.endsWith(".css") ? /^text\/css/ : /^text\/javascript/);
      expect((await file.text()).length).toBeGreaterThan(100);
    }
  });

  it("answers 404 in the error shape for an asset it does not have", async () => {
    const res = await call("/docs/assets/swagger-ui-dist/nope.js");
    expect(res.status).toBe(404);
    expect((await res.json<Json>()).error.code).toBe("not_found");
  });
});
