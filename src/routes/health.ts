import { createRoute, z } from "@hono/zod-openapi";
import { HEALTH_OK } from "./health-ok";
import { createApp, json } from "./kernel/openapi";

const HealthSchema = z.object({ status: z.literal("ok"), service: z.literal("offload-gate") }).openapi("Health");

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  summary: "Liveness: answers without touching KV",
  tags: ["health"],
  responses: { 200: json(HealthSchema, "The worker is up") },
});

/**
 * GET /healthz: the cheapest route the worker serves, and the benchmark's baseline.
 *
 * @example
 * curl -s 127.0.0.1:8787/healthz // {"status":"ok","service":"offload-gate"}
 */
export const health = createApp().openapi(healthRoute, (c) => c.json(HEALTH_OK, 200));
