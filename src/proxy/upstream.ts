/**
 * @module proxy/upstream
 *
 * The one host each provider's requests go to: the operator's variable
 * (`ANTHROPIC_UPSTREAM`, `OPENAI_UPSTREAM`), else the provider's public
 * API (docs/design/proxy.md §2). Nothing a client sends can change it: the
 * request's path is appended to the configured base after the route table
 * (./route.ts) has matched it whole, and redirects are never followed.
 */
import { ApiError } from "../http";
import type { Provider } from "./route";

/** Each provider's public API: the upstream when the operator sets none. */
export const DEFAULT_UPSTREAMS: Readonly<Record<Provider, string>> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com",
};

const VARIABLE: Record<Provider, "ANTHROPIC_UPSTREAM" | "OPENAI_UPSTREAM"> = {
  anthropic: "ANTHROPIC_UPSTREAM",
  openai: "OPENAI_UPSTREAM",
};

// Plain http is for a mock provider on this machine only (the tests, the benchmark).
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** A configured base, checked: its origin and path, without a trailing slash. */
type Checked = { base: string } | { problem: string };
const checked = new Map<string, Checked>();
const announced = new Set<string>();

/**
 * Checks an upstream's text once per isolate: an absolute https URL (http
 * only to a loopback host), with no credentials, query or fragment.
 *
 * @example
 * checkUpstream("https://api.anthropic.com/") // { base: "https://api.anthropic.com" }
 * checkUpstream("http://10.0.0.5") // { problem: "must be https (http only to 127.0.0.1, localhost or [::1])" }
 */
export function checkUpstream(text: string): Checked {
  let found = checked.get(text);
  if (found === undefined) {
    found = check(text);
    if (checked.size > 16) checked.clear();
    checked.set(text, found);
  }
  return found;
}

function check(text: string): Checked {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: "is not an absolute URL" };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname)))
    return { problem: "must be https (http only to 127.0.0.1, localhost or [::1])" };
  if (url.username !== "" || url.password !== "") return { problem: "must not carry credentials" };
  if (url.search !== "" || url.hash !== "") return { problem: "must have no query or fragment" };
  return { base: `${url.origin}${url.pathname.replace(/\/+$/, "")}` };
}

/**
 * The URL a proxied request goes to: the provider's configured base, the
 * matched path, the client's query. An upstream variable that does not
 * check is the operator's fault: 503, logged once, nothing sent.
 *
 * @example
 * upstreamUrl(env, "anthropic", "/v1/messages", "?beta=true") // "https://api.anthropic.com/v1/messages?beta=true"
 */
export function upstreamUrl(
  env: Partial<Record<"ANTHROPIC_UPSTREAM" | "OPENAI_UPSTREAM", string>>,
  provider: Provider,
  path: string,
  search: string,
): string {
  const variable = VARIABLE[provider];
  const configured = env[variable]?.trim() || DEFAULT_UPSTREAMS[provider];
  const result = checkUpstream(configured);
  if ("problem" in result) {
    if (!announced.has(configured)) {
      announced.add(configured);
      console.error(`offload-gate: proxy: ${variable} ${result.problem}; ${provider} requests are refused`);
    }
    throw new ApiError("unavailable", `the proxy's ${provider} upstream is misconfigured`, [
      { path: variable, message: result.problem },
    ]);
  }
  return `${result.base}${path}${search}`;
}
