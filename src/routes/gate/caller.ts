import { OPEN_TENANT } from "../../auth/gate";
import { waitUntilOf } from "../../http/app";
import { ErrorSchema, json } from "../../http/schema";
import type { DecideContext } from "./prepare";

/** The answers of every route a gate key guards, before its handler runs. */
export const CALLER_ERRORS = {
  401: json(ErrorSchema, "GATE_API_KEYS is set and the bearer key is missing or wrong"),
  429: json(ErrorSchema, "The caller's tenant is past its rate limit; Retry-After says when to retry"),
};

/**
 * What a gate route's decisions need from its request: the bindings, the
 * caller's tenant, waitUntil, and the time. The clock is read here, at the
 * edge, once per request: lifecycle dates compare as YYYY-MM-DD strings,
 * scheduled prices by the instant.
 *
 * @example
 * await decideRequest(c.req.valid("json"), decideContext(c));
 */
export function decideContext(c: Parameters<typeof waitUntilOf>[0] & { env: Env; get(key: "tenant"): string | undefined }): DecideContext {
  const now = Date.now();
  return {
    env: c.env,
    tenant: c.get("tenant") ?? OPEN_TENANT,
    waitUntil: waitUntilOf(c),
    today: new Date(now).toISOString().slice(0, 10),
    now,
  };
}
