import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http";
import { ApiError } from "../http";
import { bearerToken, isSet, keyRing, matchToken } from "./keys";

/** The realm admin routes challenge with. */
export const ADMIN_REALM = "offload-gate-admin";

/** The name of the OpenAPI security scheme admin routes declare. */
export const ADMIN_SECURITY = [{ adminBearer: [] }];

// What to send, in words: ADMIN_TOKEN holds `name:token` entries.
const TOKEN_PART = "the part of an ADMIN_TOKEN entry after `name:` (the whole `name:token` works too)";

const refuse = (message: string, issue: string, error?: string) =>
  new ApiError("unauthorized", message, [{ path: "authorization", message: issue }], {
    "WWW-Authenticate": `Bearer realm="${ADMIN_REALM}"${error === undefined ? "" : `, error="${error}"`}`,
  });

/**
 * Guards /v1/admin/*: `Authorization: Bearer <token>` must match one of
 * ADMIN_TOKEN's tokens (constant-time), and its name is who the history
 * records. Fails closed: with no ADMIN_TOKEN configured every admin route
 * answers 401. A gate key never opens an admin route, even if an operator
 * put the same token in both secrets. Failed authentications count per
 * client address and claimed name (`ADMIN_AUTH_LIMITER`, see lockoutKey);
 * past the limit that pair gets 429 on every admin route for
 * ADMIN_LOCKOUT_SECONDS, right token or not, and every other pair at the
 * address is unaffected. The address is `cf-connecting-ip`, which Cloudflare's edge sets on
 * internet traffic (and wrangler dev on every local request, as 127.0.0.1). A
 * request without it (a service binding) has no address to count against: it
 * is never counted nor locked out, so such callers cannot lock each other out
 * through one shared bucket (docs/operations.md § The trust boundary).
 *
 * @example
 * admin.use("/v1/admin/*", adminAuth());
 */
export function adminAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // An empty header is no address either: it would be one bucket for every such caller.
    const address = c.req.header("cf-connecting-ip") || undefined;
    const key =
      address === undefined ? undefined : await lockoutKey(address, c.req.header("authorization"), c.env.ADMIN_TOKEN);
    if (key !== undefined) refuseIfLockedOut(key);
    try {
      await authenticate(c);
    } catch (error) {
      if (key !== undefined) await countFailure(c.env.ADMIN_AUTH_LIMITER, key);
      throw error;
    }
    await next();
  };
}

// Buckets (address#name) past their limit of failed authentications, until when (ms).
// The binding counts failures across the location; this isolate-local list
// is what refuses the next attempt before its token is even checked, so a
// right guess after the limit is refused too. Bounded: oldest dropped first.
const lockedOut = new Map<string, number>();
const MAX_LOCKED_OUT = 4_096;

/** How long an address that passed its failure limit is refused: the binding's period. */
export const ADMIN_LOCKOUT_SECONDS = 60;

/**
 * The bucket a request's failures count in: its address and the admin name
 * its token claims (the `name:` of a whole `name:token` entry, when that
 * name is one of ADMIN_TOKEN's), or the address alone for a bare token,
 * a gate key or a name no entry has. The name is read from the request,
 * not from a match, so a right guess is still refused inside a locked
 * bucket; and an operator who sends the whole entry is never locked out by
 * another caller's bad tokens from the same address (every local request
 * under wrangler dev has one), which leaves a guesser at most
 * (names + 1) × the limit per period per address.
 *
 * @example
 * await lockoutKey("127.0.0.1", "Bearer ops-alice:…", env.ADMIN_TOKEN) // "127.0.0.1#ops-alice"
 * await lockoutKey("127.0.0.1", "Bearer …", env.ADMIN_TOKEN)           // "127.0.0.1#"
 */
export async function lockoutKey(
  address: string,
  authorization: string | undefined,
  secret: string | undefined,
): Promise<string> {
  const token = bearerToken(authorization);
  const colon = token?.indexOf(":") ?? -1;
  const claimed = token === null || colon <= 0 || !isSet(secret) ? "" : token.slice(0, colon);
  const named = claimed !== "" && (await keyRing(secret!, "admin", "ADMIN_TOKEN")).names.includes(claimed);
  return `${address}#${named ? claimed : ""}`;
}

function refuseIfLockedOut(key: string): void {
  const until = lockedOut.get(key);
  if (until === undefined) return;
  if (until <= Date.now()) {
    lockedOut.delete(key);
    return;
  }
  throw tooManyFailures(until);
}

async function countFailure(limiter: RateLimit | undefined, key: string): Promise<void> {
  if (limiter === undefined) return;
  let outcome: RateLimitOutcome;
  try {
    outcome = await limiter.limit({ key: `admin-auth:${key}` });
  } catch (error) {
    console.warn("offload-gate: admin auth limiter failed", error instanceof Error ? error.message : error);
    return;
  }
  if (outcome.success) return;
  if (lockedOut.size >= MAX_LOCKED_OUT) lockedOut.delete(lockedOut.keys().next().value as string);
  const until = Date.now() + ADMIN_LOCKOUT_SECONDS * 1000;
  lockedOut.set(key, until);
  const [from, name] = key.split("#");
  console.warn(
    `offload-gate: too many failed admin authentications from ${from}${name ? ` naming ${name}` : ""}; refusing them for ${ADMIN_LOCKOUT_SECONDS} s`,
  );
  throw tooManyFailures(until);
}

function tooManyFailures(until: number): ApiError {
  const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
  return new ApiError(
    "rate_limited",
    `too many failed admin authentications from this address (and this token's name); retry after ${seconds} s`,
    [],
    {
      "Retry-After": String(seconds),
    },
  );
}

async function authenticate(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Promise<void> {
  const secret = c.env.ADMIN_TOKEN;
  if (!isSet(secret)) throw refuse("the admin API is disabled: no ADMIN_TOKEN is configured", "cannot be checked");
  const ring = await keyRing(secret, "admin", "ADMIN_TOKEN");
  if (ring.names.length === 0)
    throw refuse("the admin API is disabled: ADMIN_TOKEN holds no valid token", "cannot be checked");
  const token = bearerToken(c.req.header("authorization"));
  if (token === null) throw refuse(`admin routes require Authorization: Bearer <token>, ${TOKEN_PART}`, "is required");
  const name = await matchToken(ring, token);
  if (name === null)
    throw refuse(`the admin token is not valid; send ${TOKEN_PART}`, "is not a valid admin token", "invalid_token");
  const gateSecret = c.env.GATE_API_KEYS;
  if (isSet(gateSecret) && (await matchToken(await keyRing(gateSecret, "default", "GATE_API_KEYS"), token)) !== null) {
    console.warn(
      `offload-gate: admin token "${name}" is also a gate key; refused on admin routes until one is rotated`,
    );
    throw refuse("this token is also a gate key, so it cannot open admin routes", "is a gate key", "invalid_token");
  }
  c.set("admin", name);
}
