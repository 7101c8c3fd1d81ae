import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import worker from "../../src/index";
import { ledgerSessionBase } from "../../src/proxy/observe";
import { putRow, resetState } from "../support/helpers";
import { TEST_GATE_API_KEYS } from "../support/secrets";

/** The host every proxy test addresses the worker by. */
export const GATE_URL = "http://gate.test";

/** Where the tests point the upstreams: loopback, never reached (the mock answers the worker's outbound fetch). */
export const MOCK_ANTHROPIC = "http://127.0.0.1:9/anthropic";
export const MOCK_OPENAI = "http://127.0.0.1:9/openai";

/** The worker's env for the proxy's tests: the mock upstreams and, with `keys`, the test gate keys. */
export function proxyEnv(over: Record<string, unknown> = {}, keys = true): Env {
  return {
    ...env,
    ANTHROPIC_UPSTREAM: MOCK_ANTHROPIC,
    OPENAI_UPSTREAM: MOCK_OPENAI,
    ...(keys ? { GATE_API_KEYS: TEST_GATE_API_KEYS } : {}),
    ...over,
  } as unknown as Env;
}

/** One request the mock provider received, as it received it. */
export interface Received {
  url: string;
  method: string;
  headers: Headers;
  bytes: Uint8Array;
}

/** A mock provider: records each outbound request's bytes, answers with `respond`. */
export function mockProvider(respond: (request: Received) => Response | Promise<Response>) {
  const received: Received[] = [];
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    const got: Received = {
      url: request.url,
      method: request.method,
      headers: request.headers,
      bytes: new Uint8Array(await request.arrayBuffer()),
    };
    received.push(got);
    return respond(got);
  });
  return { received, spy };
}

/**
 * Calls the worker as a client would, with its own execution context, and
 * (unless `wait` is false) waits for the proxy's background work.
 */
export async function proxyCall(
  request: Request,
  over: Record<string, unknown> = {},
  options: { keys?: boolean; wait?: boolean } = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, proxyEnv(over, options.keys ?? true), ctx);
  if (options.wait === false) return res;
  const bytes = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return new Response(bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** What an SDK sent: its body's bytes and its headers. */
export interface Sent {
  bytes: Uint8Array;
  headers: Headers;
}

/** The proxy's background work of every SDK call, for a test to wait on before it ends. */
export const pendingWork: Promise<unknown>[] = [];

/** A fetch for an SDK: every call goes through the worker, and what the SDK sent is kept. */
export function sdkFetch(sent: Sent[], over: Record<string, unknown> = {}) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    sent.push({ bytes: new Uint8Array(await request.clone().arrayBuffer()), headers: new Headers(request.headers) });
    const ctx = createExecutionContext();
    const res = await worker.fetch(request, proxyEnv(over), ctx);
    // The answer streams on to the SDK; the background work is waited for once the answer is read whole.
    if (res.body === null) {
      pendingWork.push(waitOnExecutionContext(ctx));
      return res;
    }
    const [toClient, toWait] = res.body.tee();
    pendingWork.push(new Response(toWait).arrayBuffer().then(() => waitOnExecutionContext(ctx)));
    return new Response(toClient, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** Waits for every SDK call's background work (call it before a test ends). */
export async function settle(): Promise<void> {
  while (pendingWork.length > 0) await Promise.all(pendingWork.splice(0));
}

/** A server-sent events body from events, each `event:` and `data:` as the providers write them. */
export function sse(events: { event?: string; data: unknown }[]): string {
  return events
    .map(
      (e) =>
        `${e.event === undefined ? "" : `event: ${e.event}\n`}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`,
    )
    .join("");
}

/** Equal bytes, shown as text when they differ. */
export function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/**
 * A JSON POST to the worker under `path` (`/proxy/…`), with the headers a
 * provider's client sends and the test's own.
 */
export function proxyPost(path: string, body: string | Uint8Array, headers: Record<string, string> = {}): Request {
  return new Request(`${GATE_URL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

/** Empties the ledger, KV and the session objects' tallies, and prices `model` at `row` (per million tokens). */
export async function freshState(model: string, row: Parameters<typeof putRow>[1]): Promise<void> {
  await resetState();
  await putRow(model, row);
}

/** The session object of a tenant's session of one model, as the proxy names it. */
export function sessionStub(tenant: string, session: string, model: string) {
  return env.PROXY_SESSIONS.get(env.PROXY_SESSIONS.idFromName(`${tenant}/${ledgerSessionBase(session, model)}`));
}

/** The env override that turns enforce mode on for a call. */
export const ENFORCE = { PROXY_MODE: "enforce" };

/** A line only the big file holds: what a model that saw the original can quote. */
export const UNIQUE = "export const RETRY_BUDGET_MS_7 = computeBudget(42);";

/** About 400,000 characters of file ending in {@link UNIQUE}: a stub pays for itself many times over. */
export const BIG_FILE = [
  ...Array.from({ length: 10_000 }, (_, i) => `line ${i} of the file, nothing to see here`),
  UNIQUE,
].join("\n");

/**
 * The longest prefix two byte strings share: how much of the previous
 * request a provider's prompt cache could still serve.
 *
 * @example
 * sharedPrefix(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4])) // 2
 */
export function sharedPrefix(a: Uint8Array, b: Uint8Array): number {
  let i = 0;
  const n = Math.min(a.length, b.length);
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * Where a request's messages end (the last byte before the array's closing bracket).
 *
 * @example
 * messagesEnd(new TextEncoder().encode('{"messages":[1]}')) // 14
 */
export function messagesEnd(bytes: Uint8Array): number {
  const body = text(bytes);
  const messages = JSON.stringify((JSON.parse(body) as { messages: unknown[] }).messages);
  const at = body.indexOf(messages);
  expect(at).toBeGreaterThan(0);
  return at + messages.length - 1;
}
