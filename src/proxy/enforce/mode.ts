/**
 * @module proxy/enforce/mode
 *
 * Whether the proxy acts on a tenant's traffic, and which of its sessions
 * are the holdout (docs/design/proxy.md §8): the tenant's entry in the
 * config's `proxy_modes`, else the deployment's `PROXY_MODE` variable, else
 * `observe`; a session is held out by the ledger's own draw, so the
 * decisions the gate records for it carry the same arm. Pure.
 */
import { holdoutKey, inHoldout } from "../../ledger";

/** The proxy's two modes: watch (part one), or stub what the gate fires on. */
export type ProxyMode = "observe" | "enforce";

/**
 * The tool name every enforced decision is recorded under. One name per
 * session makes the ledger's (session, tool) holdout draw a draw per
 * session, so a held-out session is held out whole, and it keeps the
 * proxy's enacted decisions in verdict and savings rows of their own.
 */
export const ENFORCED_TOOL = "proxy:enforced";

/**
 * A tenant's mode: its own entry in `proxy_modes`, else the deployment's
 * `PROXY_MODE` (anything but `enforce` observes: a typo never turns
 * stubbing on).
 *
 * @example
 * proxyModeOf("enforce", null, "acme") // "enforce"
 * proxyModeOf("enforce", { acme: "observe" }, "acme") // "observe"
 * proxyModeOf(undefined, { acme: "enforce" }, "acme") // "enforce"
 */
export function proxyModeOf(
  variable: string | undefined,
  modes: Readonly<Record<string, ProxyMode>> | null,
  tenant: string,
): ProxyMode {
  if (modes !== null && Object.hasOwn(modes, tenant)) return modes[tenant] === "enforce" ? "enforce" : "observe";
  return variable?.trim() === "enforce" ? "enforce" : "observe";
}

/**
 * Whether a session is in the holdout: the ledger's draw for its enforced
 * decisions (tenant, session, {@link ENFORCED_TOOL}), the very draw the gate
 * makes when it records them. Deterministic from the session's id.
 *
 * @example
 * sessionHeldOut("acme", "px:u:0a1b.m2c", 0) // false: the default holds nobody out
 */
export function sessionHeldOut(tenant: string, session: string, fraction: number): boolean {
  return inHoldout(tenant, holdoutKey(session, ENFORCED_TOOL, ""), fraction);
}

/** The endpoints enforce mode acts on: Anthropic's Messages, OpenAI's Chat Completions and Responses. */
export const ENFORCED_ENDPOINTS: ReadonlySet<string> = new Set(["messages", "chat", "responses"]);
