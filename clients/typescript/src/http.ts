/**
 * One call to the gate with a deadline: attempts, bounded retries on 429 and
 * 503 after Retry-After (only when the wait fits the time left), and the
 * answer read inside the deadline. Knows nothing of routes.
 */
import { GateError, reasonCodeFor, type Issue } from "./errors.js";

const RETRY_STATUSES = new Set([429, 503]);

export interface Attempts {
  timeoutMs: number;
  maxRetries: number;
  signal?: AbortSignal;
}

/**
 * Sends until an answer is final, then returns its JSON body; throws a GateError otherwise.
 *
 * @example
 * const body = await callGate((signal) => fetch(url, { method: "POST", body, signal }), { timeoutMs: 2000, maxRetries: 2 });
 */
export async function callGate(send: (signal: AbortSignal) => Promise<Response>, attempts: Attempts): Promise<unknown> {
  const deadline = Date.now() + attempts.timeoutMs;
  for (let attempt = 0; ; attempt += 1) {
    const response = await attemptWithin(send, deadline - Date.now(), attempts.timeoutMs, attempts.signal);
    const wait = retryWait(response, attempt, attempts.maxRetries, deadline - Date.now());
    if (wait === null) return answerOf(response);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

async function attemptWithin(
  send: (signal: AbortSignal) => Promise<Response>,
  remaining: number,
  budget: number,
  outer?: AbortSignal,
): Promise<Response> {
  const late = () => new GateError("gate_unreachable", `no answer within the ${budget} ms timeout`);
  if (remaining <= 0) throw late();
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(late()), remaining);
  try {
    const response = await send(controller.signal);
    // Read the body inside the deadline too: a gate that stalls mid-answer is unreachable.
    const text = await response.text();
    return new Response(text, { status: response.status, headers: response.headers });
  } catch (error) {
    if (controller.signal.reason instanceof GateError) throw controller.signal.reason;
    throw new GateError("gate_unreachable", error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}

function retryWait(response: Response, attempt: number, maxRetries: number, remaining: number): number | null {
  if (!RETRY_STATUSES.has(response.status) || attempt >= maxRetries) return null;
  const header = retryAfterSeconds(response);
  const wait = header !== null ? header * 1000 : 100 * 2 ** attempt * (0.5 + Math.random() / 2);
  return wait < remaining ? wait : null;
}

function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get("retry-after");
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, (when - Date.now()) / 1000);
}

async function answerOf(response: Response): Promise<unknown> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.ok) {
    if (body === undefined)
      throw new GateError("gate_bad_answer", `unreadable answer (HTTP ${response.status})`, response.status);
    return body;
  }
  const error = (body as { error?: { message?: unknown; issues?: Issue[] } } | undefined)?.error;
  const message = typeof error?.message === "string" ? error.message : `HTTP ${response.status}`;
  throw new GateError(
    reasonCodeFor(response.status),
    `${message} (HTTP ${response.status})`,
    response.status,
    error?.issues ?? [],
    retryAfterSeconds(response),
  );
}
