import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http";
import { ApiError } from "../http";
import { bearerToken, isSet, keyRing, matchToken } from "./keys";
import { enforceRateLimit } from "./rate-limit";

/** The tenant of a caller when GATE_API_KEYS is unset (the gate is open). */
export const OPEN_TENANT = "default";

/** The OpenAPI security of the gate's routes: a gate key, or none while GATE_API_KEYS is unset. */
export const GATE_SECURITY: Record<string, string[]>[] = [{ gateBearer: [] }, {}];

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="offload-gate"' };
let announcedOpen = false;

/**
 * Guards /v1/gate and /v1/gate/*: when GATE_API_KEYS is set, a caller must
 * present one of its keys as `Authorization: Bearer <key>`, and the key's
 * name becomes the tenant; when it is unset the gate is open (logged once
 * per isolate) and the tenant is "default". Then the tenant's rate limit.
 *
 * @example
 * app.use("/v1/gate/*", gateKeys()); // also matches /v1/gate
 */
export function gateKeys(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const tenant = await gateTenant(c.env.GATE_API_KEYS, c.req.header("authorization"));
    c.set("tenant", tenant);
    await enforceRateLimit(c.env.GATE_RATE_LIMITER, tenant);
    await next();
  };
}

/**
 * Who a gate request comes from: the name of the gate key its
 * `Authorization` header presents, or "default" while GATE_API_KEYS is
 * unset; throws the 401 otherwise. {@link gateKeys} and the gate's direct
 * path (src/routes/gate/direct/direct.ts) both ask it.
 *
 * @example
 * await gateTenant(env.GATE_API_KEYS, request.headers.get("authorization") ?? undefined) // "agents-prod"
 */
export async function gateTenant(secret: string | undefined, authorization: string | undefined): Promise<string> {
  if (!isSet(secret)) {
    if (!announcedOpen) {
      announcedOpen = true;
      console.log(
        'offload-gate: GATE_API_KEYS is unset, so the gate is open: /v1/gate answers any caller as tenant "default"',
      );
    }
    return OPEN_TENANT;
  }
  const ring = await keyRing(secret, OPEN_TENANT, "GATE_API_KEYS");
  const token = bearerToken(authorization);
  if (token === null) {
    throw new ApiError(
      "unauthorized",
      "this gate requires a key: send Authorization: Bearer <key>",
      [{ path: "authorization", message: "is required" }],
      CHALLENGE,
    );
  }
  const name = await matchToken(ring, token);
  if (name === null) {
    throw new ApiError(
      "unauthorized",
      "the gate key is not valid",
      [{ path: "authorization", message: "is not a valid key" }],
      {
        "WWW-Authenticate": 'Bearer realm="offload-gate", error="invalid_token"',
      },
    );
  }
  return name;
}

/**
 * Whether a tenant is one a gate key names: any name in GATE_API_KEYS, or
 * "default" while it is unset (the open gate's only tenant).
 *
 * @example
 * await namedTenant(env.GATE_API_KEYS, "agents-prod") // true when an entry is "agents-prod:<token>"
 */
export async function namedTenant(secret: string | undefined, tenant: string): Promise<boolean> {
  if (!isSet(secret)) return tenant === OPEN_TENANT;
  return (await keyRing(secret, OPEN_TENANT, "GATE_API_KEYS")).names.includes(tenant);
}
