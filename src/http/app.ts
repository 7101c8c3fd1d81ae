/** What every handler sees on its context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** Who is calling: a gate key's name, or "default" when the gate is open. */
    tenant: string;
    /** The admin token's name, on /v1/admin routes: who the pricing history records. */
    admin: string;
  };
}

/**
 * The context's waitUntil, or a stand-in that lets the promise float where
 * there is no execution context (unit tests calling `app.request`).
 */
export function waitUntilOf(c: {
  executionCtx: { waitUntil(promise: Promise<unknown>): void };
}): (promise: Promise<unknown>) => void {
  let ctx: { waitUntil(promise: Promise<unknown>): void } | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Hono throws when the app was called without one.
  }
  return waitUntilFor(ctx);
}

/**
 * {@link waitUntilOf} for an execution context in hand, or none.
 *
 * @example
 * const waitUntil = waitUntilFor(ctx); // ctx may be undefined in a test
 */
export function waitUntilFor(
  ctx: { waitUntil(promise: Promise<unknown>): void } | undefined,
): (promise: Promise<unknown>) => void {
  return ctx === undefined ? (promise) => void promise.catch(() => undefined) : (promise) => ctx.waitUntil(promise);
}

/**
 * A request URL's path as Hono's router reads it (up to the query), or
 * undefined when it holds a percent sign: the router decodes those, so a
 * caller outside the router leaves them to it.
 *
 * @example
 * requestPath("http://127.0.0.1:8787/v1/gate?trace=1") // "/v1/gate"
 */
export function requestPath(url: string): string | undefined {
  const start = url.indexOf("/", url.indexOf(":") + 4);
  const query = url.indexOf("?", start);
  const path = query === -1 ? url.slice(start) : url.slice(start, query);
  return path.includes("%") || path.includes("#") ? undefined : path;
}
