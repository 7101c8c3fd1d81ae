import { jsonResponse, requestPath } from "../http";

/** What GET /healthz answers: the worker is up (it touches nothing). */
export const HEALTH_OK = { status: "ok", service: "offload-gate" } as const;

/**
 * GET /healthz without the app: the answer the health route gives (./health.ts),
 * byte for byte, for the deployed entry to serve before the app is built;
 * undefined for any other request.
 *
 * @example
 * directHealth(new Request("http://127.0.0.1:8787/healthz"))?.status // 200
 */
export function directHealth(request: Request): Response | undefined {
  return request.method === "GET" && requestPath(request.url) === "/healthz" ? jsonResponse(HEALTH_OK, 200) : undefined;
}
