/**
 * @module proxy/tenant
 *
 * Who a proxied request belongs to: the gate key it presents, in the
 * `x-offload-gate-key` header or in the path (`/proxy/k/<key>/…`), checked
 * against GATE_API_KEYS exactly as the gate's own routes check a bearer
 * (docs/design/proxy.md §3). The provider's key (`x-api-key`,
 * `Authorization`) is never looked at here.
 */
import { gateTenant } from "../auth";
import { ApiError } from "../http";
import { GATE_KEY_HEADER } from "./constants";

export { GATE_KEY_HEADER } from "./constants";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="offload-gate"' };

/** A request's tenant and the gate key it came with (held in memory for the in-process gate call, never stored). */
export interface ProxyTenant {
  tenant: string;
  key: string | null;
}

/**
 * The tenant of a proxied request, or the 401 to answer before anything
 * goes upstream. The header wins over the path; while GATE_API_KEYS is
 * unset the proxy is open like the gate, tenant "default".
 *
 * @example
 * await proxyTenant(env.GATE_API_KEYS, request.headers.get("x-offload-gate-key"), route.pathKey) // { tenant: "agents-prod", key: "…" }
 */
export async function proxyTenant(
  secret: string | undefined,
  headerKey: string | null,
  pathKey: string | null,
): Promise<ProxyTenant> {
  const key = headerKey?.trim() || pathKey;
  const where = headerKey?.trim() ? GATE_KEY_HEADER : "path";
  try {
    // A key with a blank in it is no key: gateTenant would read only its first word.
    const bearer = key === null || /\s/.test(key) ? undefined : `Bearer ${key}`;
    if (key !== null && bearer === undefined) throw new ApiError("unauthorized", "not a key");
    return { tenant: await gateTenant(secret, bearer), key };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "unauthorized") throw error;
    throw key === null
      ? new ApiError(
          "unauthorized",
          `this proxy requires a gate key: send it in the ${GATE_KEY_HEADER} header, or in the path as /proxy/k/<key>/…`,
          [{ path: GATE_KEY_HEADER, message: "is required" }],
          CHALLENGE,
        )
      : new ApiError(
          "unauthorized",
          "the gate key is not valid",
          [{ path: where, message: "is not a valid gate key" }],
          {
            "WWW-Authenticate": 'Bearer realm="offload-gate", error="invalid_token"',
          },
        );
  }
}
