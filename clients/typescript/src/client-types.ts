/**
 * The client's request, answer and interface types, read from the generated
 * route types (app-type.ts). index.ts exports them; the session modules
 * import them from here, not from index.ts, which imports the session.
 */
import type { hc } from "hono/client";
import type { AppType, GateSchema, OutcomeReport, SessionReport } from "./app-type.js";
import type { FallbackReasonCode, GateError, Issue } from "./errors.js";

// A route's POST, its JSON body and its 200 answer, read from the generated
// schema (never when the gate this client was built from has no such route).
type PostOf<P extends string> = P extends keyof GateSchema
  ? GateSchema[P] extends { $post: infer E }
    ? E
    : never
  : never;
type Ok<E> = Extract<E, { status: 200 }> extends { output: infer O } ? O : never;
type JsonIn<E> = E extends { input: { json: infer J } } ? J : never;

/** The body of POST /v1/gate: the reference's field names. */
export type GateRequest = JsonIn<PostOf<"/v1/gate">>;
/** A decision the gate made (the 200 answer of POST /v1/gate). */
export type ServerDecision = Ok<PostOf<"/v1/gate">>;
/** The body of POST /v1/plan. */
export type PlanRequest = JsonIn<PostOf<"/v1/plan">>;
/** A plan the gate made (the 200 answer of POST /v1/plan). */
export type ServerPlan = Ok<PostOf<"/v1/plan">>;
/** The body of POST /v1/context-management: a plan's, tools named. */
export type ContextManagementRequest = JsonIn<PostOf<"/v1/context-management">>;
/** The clear_tool_uses edit the gate priced (the 200 answer of POST /v1/context-management). */
export type ServerContextManagement = Ok<PostOf<"/v1/context-management">>;
/** The 200 answer of POST /v1/outcomes and POST /v1/sessions: a result per item and the tally. */
export type ServerReport = Ok<PostOf<"/v1/outcomes">>;

/** What a call answers when the gate did not: the reason code and the cause. */
export interface Fallback {
  fallback: true;
  reason_code: FallbackReasonCode;
  reason: string;
  issues: Issue[];
  error: GateError;
}
/** The client's safe default for a decision: do not offload, and say why. */
export type FallbackDecision = Fallback & { fire: false; net_saving_usd: 0 };
/** The client's safe default for a plan: stub nothing. */
export type FallbackPlan = Fallback & { stub: []; net_saving_usd: 0 };

/** The client's safe default for server-side clearing: send no edit. */
export type FallbackContextManagement = Fallback & { context_management: null; net_usd: 0 };
/** What `contextManagement` resolves to: the gate's answer, or no edit (`fallback: true`). */
export type GateContextManagement = (ServerContextManagement & { fallback: false }) | FallbackContextManagement;

/** What `decide` resolves to: the gate's decision, or the client's fallback (`fallback: true`). */
export type GateDecision = (ServerDecision & { fallback: false }) | FallbackDecision;
/** What `plan` resolves to: the gate's plan, or the empty plan (`fallback: true`). */
export type GatePlan = (ServerPlan & { fallback: false }) | FallbackPlan;
/** What a report resolves to: the gate's results (`ok: true`), or why it did not take them. */
export type GateReport = (ServerReport & { ok: true }) | { ok: false; error: GateError };

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
  /** Which cached tool outputs to stub before the next turn (POST /v1/plan). */
  plan(request: PlanRequest, options?: CallOptions): Promise<GatePlan>;
  /** The Anthropic clear_tool_uses edit that costs least, or none (POST /v1/context-management). Optional: a hand-made client may leave it out. */
  contextManagement?(request: ContextManagementRequest, options?: CallOptions): Promise<GateContextManagement>;
  /** What happened after each decision (POST /v1/outcomes, 100 a call). */
  reportOutcomes(items: readonly OutcomeReport[], options?: CallOptions): Promise<GateReport>;
  /** Finished sessions' bills (POST /v1/sessions, 100 a call). */
  reportSessions(items: readonly SessionReport[], options?: CallOptions): Promise<GateReport>;
  /** The typed `hc` client, for every route (without the fallbacks). */
  readonly raw: ReturnType<typeof hc<AppType>>;
}
