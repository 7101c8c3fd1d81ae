import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/app";
import { ApiError } from "../http/errors";
import { bearerToken, isSet, keyRing, matchToken } from "./keys";

/** The realm admin routes challenge with. */
export const ADMIN_REALM = "offload-gate-admin";

/** The name of the OpenAPI security scheme admin routes declare. */
export const ADMIN_SECURITY = [{ adminBearer: [] }];

const refuse = (message: string, issue: string, error?: string) =>
  new ApiError("unauthorized", message, [{ path: "authorization", message: issue }], {
    "WWW-Authenticate": `Bearer realm="${ADMIN_REALM}"${error === undefined ? "" : `, error="${error}"`}`,
  });

/**
 * Guards /v1/admin/*: `Authorization: Bearer <token>` must match one of
 * ADMIN_TOKEN's tokens (constant-time), and its name is who the history
 * records. Fails closed: with no ADMIN_TOKEN configured every admin route
 * answers 401. A gate key never opens an admin route, even if an operator
 * put the same token in both secrets.
 *
 * @example
 * admin.use("/v1/admin/*", adminAuth());
 */
export function adminAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const secret = c.env.ADMIN_TOKEN;
    if (!isSet(secret)) throw refuse("the admin API is disabled: no ADMIN_TOKEN is configured", "cannot be checked");
    const ring = await keyRing(secret, "admin", "ADMIN_TOKEN");
    if (ring.names.length === 0) throw refuse("the admin API is disabled: ADMIN_TOKEN holds no valid token", "cannot be checked");
    const token = bearerToken(c.req.header("authorization"));
    if (token === null) throw refuse("admin routes require Authorization: Bearer <admin token>", "is required");
    const name = await matchToken(ring, token);
    if (name === null) throw refuse("the admin token is not valid", "is not a valid admin token", "invalid_token");
    const gateSecret = c.env.GATE_API_KEYS;
    if (isSet(gateSecret) && (await matchToken(await keyRing(gateSecret, "default", "GATE_API_KEYS"), token)) !== null) {
      console.warn(`offload-gate: admin token "${name}" is also a gate key; refused on admin routes until one is rotated`);
      throw refuse("this token is also a gate key, so it cannot open admin routes", "is a gate key", "invalid_token");
    }
    c.set("admin", name);
    await next();
  };
}
