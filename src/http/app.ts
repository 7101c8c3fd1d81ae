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
  try {
    const ctx = c.executionCtx;
    return (promise) => ctx.waitUntil(promise);
  } catch {
    return (promise) => void promise.catch(() => undefined);
  }
}
