import { Validator, type Schema } from "@cfworker/json-schema";
import type { z } from "@hono/zod-openapi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import app from "../../src/routes";
import { MAX_BODY_BYTES } from "../../src/http/guards";
import { callWithEnv } from "../support/admin-helpers";
import { WORKED_EXAMPLE_P1 } from "../../src/routes/plan/schema";
import { bearer, call, EXAMPLE_A, jsonInit, OPUS, postGate, postJson, putRow, resetState } from "../support/helpers";
import { ALICE_TOKEN, TEST_GATE_API_KEYS } from "../support/secrets";

type Json = Record<string, any>;

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

// Pages and the document itself are not API: they are all the app serves
// outside the document. Everything else must be in it.
const NOT_API = new Set(["/", "/docs", "/openapi.json", "/console/replay"]);
const isNotApi = (path: string) => NOT_API.has(path) || path.startsWith("/docs/");
const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** The app's own routes as OpenAPI paths: `:model` → `{model}`, method catch-alls (405s, middleware) left out. */
function servedOperations(): string[] {
  const ops = app.routes
    .filter((route) => route.method !== "ALL" && !isNotApi(route.path))
    .map((route) => `${route.method.toLowerCase()} ${route.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`);
  return [...new Set(ops)].sort();
}

function documentedOperations(): string[] {
  return Object.entries(doc.paths as Json)
    .flatMap(([path, item]) =>
      Object.keys(item as Json)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method} ${path}`),
    )
    .sort();
}

/** A standalone JSON Schema (2020-12) for a node of the document, its `$ref`s pointing at `$defs`. */
function standalone(schema: unknown): Schema {
  const rewrite = (value: unknown) =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/'));
  return { ...rewrite(schema), $defs: rewrite(doc.components?.schemas ?? {}) };
}

function validate(schema: unknown, value: unknown): string[] {
  const result = new Validator(standalone(schema), "2020-12", false).validate(value);
  return result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

const resolve = (schema: Json): Json =>
  typeof schema.$ref === "string"
    ? resolve(doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")])
    : schema;

/** Keys the value carries that its documented schema does not declare: the document must not under-describe an answer. */
function undeclaredKeys(value: unknown, schema: Json, at = "$"): string[] {
  const s = resolve(schema);
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
    if (validate(branch, value).length === 0) return undeclaredKeys(value, branch, at);
  }
  if (Array.isArray(value))
    return value.flatMap((item, i) => (s.items ? undeclaredKeys(item, s.items, `${at}[${i}]`) : []));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const declared = s.properties?.[key];
    if (declared !== undefined) return undeclaredKeys(child, declared, `${at}.${key}`);
    return s.additionalProperties !== undefined && s.additionalProperties !== false ? [] : [`${at}.${key}`];
  });
}

interface Example {
  where: string;
  schema: unknown;
  value: unknown;
}

/**
 * Every example the document carries, with the schema it illustrates: on
 * schemas (`example`, `examples: []`), and on media types and parameters
 * (`example`, `examples: { name: { value } }`). Example values themselves
 * are not walked: they are data, not schema.
 */
function examplesIn(node: unknown, where: string, out: Example[] = []): Example[] {
  if (node === null || typeof node !== "object") return out;
  if (Array.isArray(node)) {
    node.forEach((item, i) => examplesIn(item, `${where}/${i}`, out));
    return out;
  }
  const obj = node as Json;
  const { example, examples, ...rest } = obj;
  if ("schema" in obj && (example !== undefined || examples !== undefined)) {
    if (example !== undefined) out.push({ where, schema: obj.schema, value: example });
    for (const [name, entry] of Object.entries((examples ?? {}) as Json))
      out.push({ where: `${where}#${name}`, schema: obj.schema, value: entry.value });
  } else if (example !== undefined || Array.isArray(examples)) {
    const schema = { ...rest };
    if (example !== undefined) out.push({ where, schema, value: example });
    for (const [i, value] of (Array.isArray(examples) ? examples : []).entries())
      out.push({ where: `${where}#${i}`, schema, value });
  }
  for (const [key, child] of Object.entries(rest)) examplesIn(child, `${where}/${key}`, out);
  return out;
}

describe("GET /openapi.json", () => {
  it("serves an OpenAPI 3.1 document with the bearer security schemes", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("offload-gate");
    const bearer = Object.values(doc.components.securitySchemes as Json).filter(
      (s: Json) => s.type === "http" && s.scheme === "bearer",
    );
    expect(bearer.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(["GateRequest", "GateDecision", "Error"]),
    );
  });

  it("describes every route the app serves, and nothing it does not", () => {
    const served = servedOperations();
    expect(served).toContain("post /v1/gate");
    expect(served).toContain("get /healthz");
    expect(documentedOperations()).toEqual(served);
  });

  it("documents the dry run on the gate, the batch and the plan, and the answers without an id", () => {
    const schemas = doc.components.schemas as Json;
    for (const name of ["GateRequest", "GateBatchRequest", "PlanRequest"])
      expect(schemas[name].properties.dry_run.type).toBe("boolean");
    for (const name of ["GateDecision", "Plan"]) {
      const dryRun = schemas[name].properties.dry_run;
      expect([dryRun.type, dryRun.const ?? dryRun.enum]).toEqual(["boolean", [true]]);
      expect(schemas[name].required).not.toContain("decision_id");
    }
  });

  it("names only security schemes it defines", () => {
    const schemes = Object.keys(doc.components.securitySchemes);
    const used = Object.values(doc.paths as Json).flatMap((item: Json) =>
      Object.values(item).flatMap((op: Json) => (op.security ?? []).flatMap((req: Json) => Object.keys(req))),
    );
    expect(used.filter((name) => !schemes.includes(name))).toEqual([]);
  });

  it("carries only examples that validate against their own schemas", () => {
    const examples = examplesIn(doc, "#");
    // GateRequest, GateDecision, and the property examples at least.
    expect(examples.length).toBeGreaterThan(8);
    const failures = examples.flatMap((example) =>
      validate(example.schema, example.value).map((error) => `${example.where} ${error}`),
    );
    expect(failures).toEqual([]);
  });

  it("carries body examples that the route's own zod schemas accept", () => {
    let checked = 0;
    for (const def of app.openAPIRegistry.definitions) {
      if (def.type !== "route") continue;
      const { route } = def;
      const op = doc.paths[route.path.replace(/:(\w+)/g, "{$1}")][route.method];
      const bodies: [Json | undefined, Json | undefined][] = [
        [route.request?.body?.content?.["application/json"], op.requestBody?.content?.["application/json"]],
        ...Object.entries(route.responses).map(
          ([status, response]) =>
            [(response as Json).content?.["application/json"], op.responses[status]?.content?.["application/json"]] as [
              Json | undefined,
              Json | undefined,
            ],
        ),
      ];
      for (const [zodMedia, docMedia] of bodies) {
        if (zodMedia === undefined || docMedia === undefined) continue;
        const example = docMedia.example ?? resolve(docMedia.schema).example;
        if (example === undefined) continue;
        const parsed = (zodMedia.schema as z.ZodType).safeParse(example);
        expect(parsed.success, `${route.method} ${route.path}: ${parsed.error?.message}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it("refuses unknown fields in GateRequest, as the app does", () => {
    expect(doc.components.schemas.GateRequest.additionalProperties).toBe(false);
  });

  it("answers 405 with Allow to anything but GET", async () => {
    const res = await call("/openapi.json", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});

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
