import { describe, expect, it } from "vitest";
import app from "../../src/routes/app";

describe("the admin routes in the OpenAPI document", () => {
  const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "offload-gate", version: "test" } });

  it("declares the adminBearer scheme", () => {
    expect(doc.components?.securitySchemes?.adminBearer).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("lists every admin route, each behind adminBearer and documenting its 401", () => {
    const admin = Object.entries(doc.paths ?? {}).filter(([path]) => path.startsWith("/v1/admin"));
    const operations = admin.flatMap(([path, item]) =>
      Object.entries(item as Record<string, { security?: unknown; responses?: Record<string, unknown> }>).map(
        ([method, op]) => ({ path, method, op }),
      ),
    );
    expect(operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort()).toEqual([
      "DELETE /v1/admin/aliases/{alias}",
      "DELETE /v1/admin/pending/{model}",
      "DELETE /v1/admin/pricing/{model}",
      "GET /v1/admin/aliases",
      "GET /v1/admin/config",
      "GET /v1/admin/config/history",
      "GET /v1/admin/learning",
      "GET /v1/admin/learning/acks/{tenant}/history",
      "GET /v1/admin/learning/breakers/{tenant}/history",
      "GET /v1/admin/learning/import/{tenant}/history",
      "GET /v1/admin/pending",
      "GET /v1/admin/pricing",
      "GET /v1/admin/pricing/{model}",
      "GET /v1/admin/pricing/{model}/history",
      "GET /v1/admin/savings",
      "PATCH /v1/admin/pricing/{model}",
      "POST /v1/admin/config/rollback",
      "POST /v1/admin/learning/acks/{tenant}/rollback",
      "POST /v1/admin/learning/breakers/{tenant}/rollback",
      "POST /v1/admin/learning/import",
      "POST /v1/admin/learning/import/{tenant}/rollback",
      "POST /v1/admin/learning/refresh",
      "POST /v1/admin/pending/{model}/approve",
      "POST /v1/admin/pending/{model}/reject",
      "POST /v1/admin/pricing/{model}/rollback",
      "PUT /v1/admin/config",
      "PUT /v1/admin/learning/acks/{tenant}",
      "PUT /v1/admin/learning/breakers/{tenant}",
      "PUT /v1/admin/pricing/{model}",
    ]);
    for (const { op } of operations) {
      expect(op.security).toEqual([{ adminBearer: [] }]);
      expect(op.responses).toHaveProperty("401");
    }
  });
});
