/** What {@link beforeDeadline} answers when the call did not settle in time. */
export const TIMED_OUT: unique symbol = Symbol("timed out");

/**
 * The call's answer, or TIMED_OUT once `ms` have passed; a rejection comes
 * through as one. Every ledger call the worker makes (a shard's read or
 * write, a queue send) is bounded this way, so none waits longer than
 * `ledger_timeout_ms`. A call that fails after its deadline was already
 * counted as timed out: its late rejection is swallowed, never unhandled.
 *
 * @example
 * const result = await beforeDeadline(() => ledgerShard(ns, "acme", 0).record("acme", decisions, 30), 5_000);
 * if (result === TIMED_OUT) console.error("timed out");
 */
export async function beforeDeadline<T>(call: () => PromiseLike<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)));
  // A native promise: an RPC promise reads `.catch` as a remote property.
  const answer = Promise.resolve().then(call);
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
