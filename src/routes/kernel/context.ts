import { OPEN_TENANT } from "../../auth";
import { waitUntilOf } from "../../http";

/**
 * What a gate route's decisions need from its request: the bindings, the
 * caller's tenant, waitUntil, and the time. The clock is read here, at the
 * edge, once per request: lifecycle dates compare as YYYY-MM-DD strings,
 * scheduled prices by the instant.
 *
 * @example
 * await decideRequest(c.req.valid("json"), decideContext(c));
 */
export function decideContext(
  c: Parameters<typeof waitUntilOf>[0] & { env: Env; get(key: "tenant"): string | undefined },
): DecideContext {
  return gateContext(c.env, c.get("tenant") ?? OPEN_TENANT, waitUntilOf(c));
}

/**
 * {@link decideContext} without a Hono context: the gate's direct path
 * (./direct.ts) has the bindings, the tenant and waitUntil in hand.
 *
 * @example
 * const context = gateContext(env, "agents-prod", (promise) => ctx.waitUntil(promise));
 */
export function gateContext(env: Env, tenant: string, waitUntil: (promise: Promise<unknown>) => void): DecideContext {
  const now = Date.now();
  return { env, tenant, waitUntil, today: dayOf(now), now };
}

// The UTC day is formatted once per day and isolate, not once per request.
const DAY_MS = 86_400_000;
let heldDay = { from: Number.NaN, day: "" };

function dayOf(now: number): string {
  if (!(now >= heldDay.from && now < heldDay.from + DAY_MS)) {
    const from = now - (((now % DAY_MS) + DAY_MS) % DAY_MS);
    heldDay = { from, day: new Date(from).toISOString().slice(0, 10) };
  }
  return heldDay.day;
}

/** What a decision needs from the request's surroundings. */
export interface DecideContext {
  env: Env;
  tenant: string;
  waitUntil: (promise: Promise<unknown>) => void;
  /** Today as YYYY-MM-DD (UTC), read once at the edge: the core reads no clock. */
  today: string;
  /** The same instant in ms: which scheduled prices are in force. */
  now: number;
}
