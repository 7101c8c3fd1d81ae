/**
 * offload-gate's TypeScript client, for a plain Node or browser project: the
 * gate's `hc` types (no Workers types, no JSX settings) and a small wrapper
 * that fails safe. When the gate cannot answer in time, `decide` resolves to
 * a no-fire decision whose `reason_code` says why; it never rejects unless
 * asked to (`raiseOnError`).
 *
 * @example
 * import { createGateClient } from "offload-gate-client";
 *
 * const gate = createGateClient({ baseUrl: "http://127.0.0.1:8787" });
 * const decision = await gate.decide({ model_name: "claude-opus-4-6", output_chars: text.length });
 * if (decision.fire) text = stubFor(text);
 */
import { hc } from "hono/client";
import type { AppType, GateSchema } from "./app-type.js";

export type { AppType, GateSchema, JSONValue } from "./app-type.js";

type Ok<E> = Extract<E, { status: 200 }> extends { output: infer O } ? O : never;
type JsonIn<E> = E extends { input: { json: infer J } } ? J : never;

/** The body of POST /v1/gate: the reference's field names. */
export type GateRequest = JsonIn<GateSchema["/v1/gate"]["$post"]>;
/** A decision the gate made (the 200 answer of POST /v1/gate). */
export type ServerDecision = Ok<GateSchema["/v1/gate"]["$post"]>;
/** One problem with one field, as the gate names it. */
export interface Issue {
  path: string;
  message: string;
}

/** The reason codes the client answers with when the gate did not decide. */
export const FALLBACK_REASON_CODES = [
  "gate_unreachable",
  "gate_unavailable",
  "gate_rate_limited",
  "gate_unauthorized",
  "gate_invalid_request",
  "gate_bad_answer",
] as const;
export type FallbackReasonCode = (typeof FALLBACK_REASON_CODES)[number];

/** Why the gate did not decide; `status` is the HTTP status when there was one. */
export class GateError extends Error {
  override readonly name = "GateError";
  constructor(
    readonly reasonCode: FallbackReasonCode,
    message: string,
    readonly status: number | null = null,
    readonly issues: Issue[] = [],
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** The client's safe default: do not offload, and say why. */
export interface FallbackDecision {
  fallback: true;
  fire: false;
  reason_code: FallbackReasonCode;
  reason: string;
  net_saving_usd: 0;
  issues: Issue[];
  error: GateError;
}

/** What `decide` resolves to: the gate's decision, or the client's fallback (`fallback: true`). */
export type GateDecision = (ServerDecision & { fallback: false }) | FallbackDecision;

export interface GateClientOptions {
  /** Default: `http://127.0.0.1:8787` (`npm run dev`). */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer`. Default: `OFFLOAD_GATE_API_KEY` from the environment, where there is one (Node). */
  apiKey?: string;
  /** The most one call may take, retries included. Default 2000. */
  timeoutMs?: number;
  /** Retries on 429 and 503, after Retry-After, when it fits the timeout. Default 2. */
  maxRetries?: number;
  /** Reject with a GateError instead of resolving to the fallback. Default false. */
  raiseOnError?: boolean;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  timeoutMs?: number;
  raiseOnError?: boolean;
  signal?: AbortSignal;
}

export interface GateClient {
  /** Whether offloading one tool output saves money (POST /v1/gate). */
  decide(request: GateRequest, options?: CallOptions): Promise<GateDecision>;
  /** One decision per request, in order (POST /v1/gate/batch, 100 a call); a refused item is a fallback with its issues. */
  decideBatch(requests: readonly GateRequest[], options?: CallOptions): Promise<GateDecision[]>;
  /** The typed `hc` client, for every other route. */
  readonly raw: ReturnType<typeof hc<AppType>>;
}

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";
export const DEFAULT_TIMEOUT_MS = 2000;
export const MAX_ITEMS_PER_CALL = 100;
const RETRY_STATUSES = new Set([429, 503]);

/**
 * A client that never rejects into the agent's loop (unless `raiseOnError`).
 *
 * @example
 * const gate = createGateClient({ apiKey: process.env.OFFLOAD_GATE_API_KEY, timeoutMs: 1000 });
 * const [a, b] = await gate.decideBatch([{ model_name: "gpt-5", output_tokens: 30_000 }, { model_name: "gpt-5", output_chars: 9_000 }]);
 */
export function createGateClient(options: GateClientOptions = {}): GateClient {
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const apiKey = options.apiKey ?? envKey();
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const raw = hc<AppType>(baseUrl, { fetch: doFetch, headers });
  const defaults = {
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: options.maxRetries ?? 2,
    raiseOnError: options.raiseOnError ?? false,
  };

  async function run<T>(send: (signal: AbortSignal) => Promise<Response>, parse: (body: unknown) => T, fallback: (e: GateError) => T, call: CallOptions = {}): Promise<T> {
    const budget = call.timeoutMs ?? defaults.timeoutMs;
    const deadline = Date.now() + budget;
    try {
      for (let attempt = 0; ; attempt += 1) {
        const response = await attemptWithin(send, deadline - Date.now(), budget, call.signal);
        const wait = retryWait(response, attempt, defaults.maxRetries, deadline - Date.now());
        if (wait === null) return parse(await answerOf(response));
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } catch (error) {
      const gateError = error instanceof GateError ? error : new GateError("gate_bad_answer", String(error));
      if (call.raiseOnError ?? defaults.raiseOnError) throw gateError;
      return fallback(gateError);
    }
  }

  return {
    raw,
    decide: (request, call) =>
      run((signal) => raw.v1.gate.$post({ json: request }, { init: { signal } }), parseDecision, fallbackDecision, call),
    async decideBatch(requests, call) {
      const decisions: GateDecision[] = [];
      for (let i = 0; i < requests.length; i += MAX_ITEMS_PER_CALL) {
        const items = requests.slice(i, i + MAX_ITEMS_PER_CALL);
        const parse = (body: unknown) => {
          const entries = (body as { decisions?: unknown }).decisions;
          if (!Array.isArray(entries) || entries.length !== items.length) throw new GateError("gate_bad_answer", `expected ${items.length} decisions`);
          return entries.map(parseDecision);
        };
        const send = (signal: AbortSignal) => raw.v1.gate.batch.$post({ json: { items: [...items] } }, { init: { signal } });
        decisions.push(...(await run(send, parse, (e) => items.map(() => fallbackDecision(e)), call)));
      }
      return decisions;
    },
  };
}

/** The fallback decision for an error: fire false, the reason code, the cause. */
export function fallbackDecision(error: GateError): FallbackDecision {
  return {
    fallback: true,
    fire: false,
    reason_code: error.reasonCode,
    reason: `the gate did not decide (${error.reasonCode}): ${error.message}; not offloading`,
    net_saving_usd: 0,
    issues: error.issues,
    error,
  };
}

function parseDecision(body: unknown): GateDecision {
  const entry = body as { fire?: unknown; reason_code?: unknown; error?: { message?: unknown; issues?: Issue[] } };
  if (entry !== null && typeof entry === "object" && entry.error !== undefined && entry.fire === undefined) {
    return fallbackDecision(new GateError("gate_invalid_request", String(entry.error.message), 400, entry.error.issues ?? []));
  }
  if (typeof entry?.fire !== "boolean" || typeof entry.reason_code !== "string") {
    throw new GateError("gate_bad_answer", "a decision must carry a boolean fire and a reason_code");
  }
  return { ...(body as ServerDecision), fallback: false };
}

async function attemptWithin(send: (signal: AbortSignal) => Promise<Response>, remaining: number, budget: number, outer?: AbortSignal): Promise<Response> {
  if (remaining <= 0) throw new GateError("gate_unreachable", `no answer within the ${budget} ms timeout`);
  const controller = new AbortController();
  const onAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new GateError("gate_unreachable", `no answer within the ${budget} ms timeout`)), remaining);
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
    if (body === undefined) throw new GateError("gate_bad_answer", `unreadable answer (HTTP ${response.status})`, response.status);
    return body;
  }
  const error = (body as { error?: { message?: unknown; issues?: Issue[] } } | undefined)?.error;
  const message = typeof error?.message === "string" ? error.message : `HTTP ${response.status}`;
  throw new GateError(reasonCodeFor(response.status), `${message} (HTTP ${response.status})`, response.status, error?.issues ?? [], retryAfterSeconds(response));
}

function reasonCodeFor(status: number): FallbackReasonCode {
  if (status === 429) return "gate_rate_limited";
  if (status === 401 || status === 403) return "gate_unauthorized";
  if (status >= 500) return "gate_unavailable";
  return "gate_invalid_request";
}

function envKey(): string | undefined {
  // Node has process.env; a browser has neither, and must pass apiKey.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.OFFLOAD_GATE_API_KEY || undefined;
}
