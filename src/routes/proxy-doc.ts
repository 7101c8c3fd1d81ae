import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env as HonoEnv } from "hono";
import { MAX_PROXY_BODY_BYTES, PROXY_OPERATIONS, type ProxyOperation } from "../proxy";
import { ErrorSchema, json } from "./kernel/openapi";

// The proxy's gate key: a header of its own, since Authorization is the provider's.
const PROXY_SECURITY_SCHEME = {
  type: "apiKey",
  in: "header",
  name: "x-offload-gate-key",
  description:
    "A GATE_API_KEYS key, as for the gate's routes; for a client that can set nothing but a base URL, in the path instead (/proxy/k/{gate_key}/…). While GATE_API_KEYS is unset the proxy is open.",
} as const;

const PROVIDER_ANSWER =
  "The provider's answer as it sent it: status, headers and body (a server-sent event stream when the request asked for one), errors included";
const PROVIDER_BODY = z.looseObject({}).openapi({
  description:
    "The provider's own request body, sent on byte for byte (not checked here: the provider answers a bad one).",
});

const ERRORS = {
  401: json(ErrorSchema, "No gate key, or one GATE_API_KEYS does not hold; nothing was sent upstream"),
  404: json(ErrorSchema, "A path the proxy does not pass on"),
  405: json(ErrorSchema, "Another method than the endpoint's; Allow lists them"),
};
const BODY_ERRORS = {
  413: json(
    ErrorSchema,
    `The declared body length is over ${MAX_PROXY_BODY_BYTES} bytes, the provider's own limit; nothing was sent`,
  ),
};
const UPSTREAM_ERROR = {
  503: json(
    ErrorSchema,
    "The provider could not be reached (sent once, never retried), or its upstream variable is misconfigured",
  ),
};

function params(path: string) {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  return names.length === 0 ? undefined : z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
}

function register<E extends HonoEnv>(app: OpenAPIHono<E>, operation: ProxyOperation, keyed: boolean): void {
  const prefix = keyed ? `/proxy/k/{gate_key}/${operation.provider}` : `/proxy/${operation.provider}`;
  const path = `${prefix}${operation.path}`;
  const observed = operation.endpoint !== "passthrough";
  for (const method of operation.methods) {
    const withBody = method === "POST";
    app.openAPIRegistry.registerPath({
      method: method.toLowerCase() as "get" | "post" | "delete",
      path,
      tags: ["proxy"],
      summary: `${operation.provider === "anthropic" ? "Anthropic" : "OpenAI"} ${method} ${operation.path}, passed through${observed ? " and observed" : ""}${keyed ? " (gate key in the path)" : ""}`,
      description: observed
        ? "Sent to the provider unchanged; what the gate would have decided about each tool result it sends for the first time is recorded off the answer's path (docs/integrating/proxy.md)."
        : "Sent to the provider unchanged, not read.",
      security: keyed ? [{}] : [{ proxyGateKey: [] }, {}],
      request: {
        ...(params(path) === undefined ? {} : { params: params(path) }),
        ...(withBody ? { body: { content: { "application/json": { schema: PROVIDER_BODY } }, required: true } } : {}),
      },
      responses: {
        200: {
          description: PROVIDER_ANSWER,
          content: { "application/json": { schema: z.unknown() }, "text/event-stream": { schema: z.string() } },
        },
        ...ERRORS,
        ...(withBody ? BODY_ERRORS : {}),
        ...UPSTREAM_ERROR,
      },
    });
  }
}

/**
 * Puts the proxy's routes in the OpenAPI document: the worker's entry
 * answers them before the app (src/index.ts), so they are described here,
 * from the proxy's own table, in both forms (gate key in a header, or in
 * the path).
 *
 * @example
 * documentProxy(app); // before serveOpenApi(app)
 */
export function documentProxy<E extends HonoEnv>(app: OpenAPIHono<E>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "proxyGateKey", PROXY_SECURITY_SCHEME);
  for (const operation of PROXY_OPERATIONS) {
    register(app, operation, false);
    register(app, operation, true);
  }
}
