import type { z } from "@hono/zod-openapi";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PROXY_OPERATIONS } from "../../src/proxy";
import app from "../../src/routes/app";
import { call, OPUS, putRow, resetState } from "../support/helpers";
import { examplesIn, resolve as resolveIn, validate as validateIn, type Json } from "../support/openapi-doc";

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

/** The proxy's operations as the entry serves them: each of its table's paths, with the gate key in a header or the path. */
function proxyOperations(): string[] {
  return PROXY_OPERATIONS.flatMap((operation) =>
    operation.methods.flatMap((method) =>
      [`/proxy/${operation.provider}`, `/proxy/k/{gate_key}/${operation.provider}`].map(
        (prefix) => `${method.toLowerCase()} ${prefix}${operation.path}`,
      ),
    ),
  ).sort();
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

const validate = (schema: unknown, value: unknown) => validateIn(doc, schema, value);
const resolve = (schema: Json) => resolveIn(doc, schema);

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
    expect(documentedOperations()).toEqual([...served, ...proxyOperations()].sort());
  });

  it("describes every route of the proxy, which the entry answers before the app, in both its forms", () => {
    expect(proxyOperations()).toContain("post /proxy/anthropic/v1/messages");
    expect(proxyOperations()).toContain("post /proxy/k/{gate_key}/openai/v1/responses");
    for (const op of proxyOperations()) {
      const [method, path] = op.split(" ") as [string, string];
      const operation = doc.paths[path][method];
      expect(operation.tags).toEqual(["proxy"]);
      for (const status of ["200", "401", "404", "405", "503"])
        expect(operation.responses[status], `${op} ${status}`).toBeDefined();
    }
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
