import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Env as HonoEnv } from "hono";
import { ApiError } from "../../http";

/** The document's fixed parts; paths and components come from the routes' zod schemas. */
export const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "offload-gate",
    version: "0.1.0",
    description:
      "Decides, for each large tool output of an LLM agent, whether replacing it with a short stub provably saves money: " +
      "fire ⇔ reprefill_saving − (stub_carry_cost + expected_recall_hop_cost) > 0. " +
      "Every error has one shape: { error: { code, message, issues: [{ path, message }] } }.",
  },
} as const;

// The bearer schemes routes declare (ADMIN_SECURITY, GATE_SECURITY):
// registered here, once, for the admin API (ADMIN_TOKEN) and gate callers
// (GATE_API_KEYS).
const SECURITY_SCHEMES = {
  adminBearer: {
    type: "http",
    scheme: "bearer",
    description:
      "An ADMIN_TOKEN token (`name:token` in the secret): send the part after `name:`; the whole `name:token` is accepted too.",
  },
  gateBearer: {
    type: "http",
    scheme: "bearer",
    description:
      "A GATE_API_KEYS key (`name:key` in the secret): send the part after `name:`; the whole `name:key` is accepted too. While GATE_API_KEYS is unset the gate is open.",
  },
} as const;

/**
 * Serves GET /openapi.json on the root app: an OpenAPI 3.1 document
 * generated from the same zod schemas that validate requests, with the
 * bearer security schemes. Call it after every `.route()`, so the merged
 * definitions are all there; the document is generated once per isolate.
 *
 * @example
 * const app = createApp().route("/", gate);
 * serveOpenApi(app); // GET /openapi.json
 */
export function serveOpenApi<E extends HonoEnv>(app: OpenAPIHono<E>): void {
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
    app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);

  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  app.get("/openapi.json", (c) => {
    try {
      document ??= app.getOpenAPI31Document(OPENAPI_INFO);
    } catch (error) {
      // A schema the generator cannot describe is our fault, not the caller's.
      console.error("offload-gate: cannot generate the OpenAPI document", error);
      throw new ApiError("internal", "the OpenAPI document could not be generated");
    }
    return c.json(document, 200, { "cache-control": "public, max-age=300" });
  });
}
