/**
 * @module proxy/route
 *
 * Which paths the proxy serves (docs/design/proxy.md §1): a fixed list per
 * provider, matched whole, so a path never names a host, never climbs out
 * of the provider's `/v1/` tree and never reaches an endpoint nobody chose
 * to pass on. Pure.
 */
import { ApiError } from "../http";
import type { ObservedEndpoint } from "./adapters";

/** The providers the proxy speaks for. */
export const PROVIDERS = ["anthropic", "openai"] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * What an endpoint is to the proxy: the three it observes (their tool
 * results, their usage), and the rest it passes on unread.
 */
export type Endpoint = ObservedEndpoint | "passthrough";

/** One endpoint the proxy serves: its path below the provider's root (`{name}` an id), its methods, what it is. */
export interface ProxyOperation {
  provider: Provider;
  path: string;
  methods: readonly string[];
  endpoint: Endpoint;
}

/**
 * What each provider's SDKs and CLIs call (Anthropic's SDK and Claude Code;
 * OpenAI's SDK and Codex CLI): the generation endpoints, token counting and
 * the model list; for Responses, the stored response's reads and cancel.
 * The OpenAPI document lists the same table (src/routes/proxy-doc.ts).
 */
export const PROXY_OPERATIONS: readonly ProxyOperation[] = [
  { provider: "anthropic", path: "/v1/messages", methods: ["POST"], endpoint: "messages" },
  { provider: "anthropic", path: "/v1/messages/count_tokens", methods: ["POST"], endpoint: "passthrough" },
  { provider: "anthropic", path: "/v1/models", methods: ["GET"], endpoint: "passthrough" },
  { provider: "anthropic", path: "/v1/models/{model_id}", methods: ["GET"], endpoint: "passthrough" },
  { provider: "openai", path: "/v1/responses", methods: ["POST"], endpoint: "responses" },
  { provider: "openai", path: "/v1/responses/input_tokens", methods: ["POST"], endpoint: "passthrough" },
  { provider: "openai", path: "/v1/responses/compact", methods: ["POST"], endpoint: "passthrough" },
  { provider: "openai", path: "/v1/responses/{response_id}", methods: ["GET", "DELETE"], endpoint: "passthrough" },
  { provider: "openai", path: "/v1/responses/{response_id}/input_items", methods: ["GET"], endpoint: "passthrough" },
  { provider: "openai", path: "/v1/responses/{response_id}/cancel", methods: ["POST"], endpoint: "passthrough" },
  { provider: "openai", path: "/v1/chat/completions", methods: ["POST"], endpoint: "chat" },
  { provider: "openai", path: "/v1/models", methods: ["GET"], endpoint: "passthrough" },
  { provider: "openai", path: "/v1/models/{model_id}", methods: ["GET"], endpoint: "passthrough" },
];

// An id in a path: what the providers' ids are made of, never a "/" or a "%".
const ID = "[A-Za-z0-9_.:-]{1,200}";

/** Each operation's path as a whole-path pattern. */
const PATTERNS = PROXY_OPERATIONS.map((operation) => ({
  operation,
  pattern: new RegExp(`^${operation.path.replace(/\{\w+\}/g, ID)}$`),
}));

/** Where the proxy's routes start. */
export const PROXY_PREFIX = "/proxy/";

/** A request's place in the proxy: the provider, the gate key the path carries, the path passed upstream. */
export interface ProxyRoute {
  provider: Provider;
  /** The gate key of the path form (`/proxy/k/<key>/<provider>/...`), or null. */
  pathKey: string | null;
  /** The provider's own path, from `/v1/` on: what is appended to the upstream. */
  path: string;
  endpoint: Endpoint;
}

/**
 * The route of a proxy path, or the 404 / 405 to answer, in the one error
 * shape. The path is matched as sent (percent-encoded characters are not
 * decoded), so `%2e%2e` never becomes a `..` upstream.
 *
 * @example
 * proxyRoute("POST", "/proxy/anthropic/v1/messages") // { provider: "anthropic", pathKey: null, path: "/v1/messages", endpoint: "messages" }
 * proxyRoute("POST", "/proxy/k/agents-key-0123456789abcdef/openai/v1/responses").pathKey // "agents-key-0123456789abcdef"
 */
export function proxyRoute(method: string, pathname: string): ProxyRoute {
  let rest = pathname.slice(PROXY_PREFIX.length);
  let pathKey: string | null = null;
  if (rest.startsWith("k/")) {
    const end = rest.indexOf("/", 2);
    pathKey = decodeKey(end < 0 ? rest.slice(2) : rest.slice(2, end));
    rest = end < 0 ? "" : rest.slice(end + 1);
  }
  const slash = rest.indexOf("/");
  const provider = (slash < 0 ? rest : rest.slice(0, slash)) as Provider;
  const path = slash < 0 ? "" : rest.slice(slash);
  const known = PROVIDERS.includes(provider);
  const rule = known
    ? PATTERNS.find((candidate) => candidate.operation.provider === provider && candidate.pattern.test(path))?.operation
    : undefined;
  if (!known || rule === undefined) {
    // The path as sent, but never the key it may carry: an error is logged and shown.
    const shown = pathKey === null ? pathname : `${PROXY_PREFIX}k/<gate key>/${rest}`;
    throw new ApiError("not_found", `the proxy serves no ${method} ${shown}`, [
      {
        path: "path",
        message: !known
          ? "must start /proxy/anthropic/ or /proxy/openai/ (or /proxy/k/<gate key>/ then one of them)"
          : `is not an endpoint of ${provider} the proxy passes on (docs/integrating/proxy.md lists them)`,
      },
    ]);
  }
  if (!rule.methods.includes(method)) {
    throw new ApiError(
      "method_not_allowed",
      `${method} is not allowed on ${path}`,
      [{ path: "method", message: `must be ${rule.methods.join(" or ")}` }],
      { Allow: rule.methods.join(", ") },
    );
  }
  return { provider, pathKey, path, endpoint: rule.endpoint };
}

function decodeKey(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: kept as sent, and refused as an unknown key.
    return segment;
  }
}
