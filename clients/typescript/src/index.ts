/**
 * offload-gate's TypeScript client, for a plain Node or browser project: the
 * gate's `hc` types (no Workers types, no JSX settings) and a small wrapper
 * that fails safe. When the gate cannot answer in time, `decide` resolves to
 * a no-fire decision whose `reason_code` says why, `plan` to the empty plan,
 * a report to `ok: false`; nothing rejects unless asked to (`raiseOnError`).
 *
 * @example
 * import { createGateClient } from "offload-gate-client";
 *
 * const gate = createGateClient({ baseUrl: "http://127.0.0.1:8787" });
 * const decision = await gate.decide({ model_name: "claude-opus-4-6", output_chars: text.length });
 * if (decision.fire) text = stubFor(text);
 */
import { hc } from "hono/client";
import type { AppType } from "./app-type.js";
import type {
  CallOptions,
  Fallback,
  FallbackContextManagement,
  FallbackDecision,
  FallbackPlan,
  GateClient,
  GateClientOptions,
  GateContextManagement,
  GateDecision,
  GatePlan,
  GateReport,
  ServerDecision,
} from "./client-types.js";
import { GateError, type Issue } from "./errors.js";
import { callGate } from "./http.js";

export type { AppType, GateSchema, JSONValue, OutcomeReport, SessionReport } from "./app-type.js";
export { FALLBACK_REASON_CODES, GateError, type FallbackReasonCode, type Issue } from "./errors.js";
export type {
  CallOptions,
  ContextManagementRequest,
  FallbackContextManagement,
  FallbackDecision,
  FallbackPlan,
  GateClient,
  GateClientOptions,
  GateContextManagement,
  GateDecision,
  GatePlan,
  GateReport,
  GateRequest,
  PlanRequest,
  ServerContextManagement,
  ServerDecision,
  ServerPlan,
  ServerReport,
} from "./client-types.js";
export {
  DEFAULT_MIN_CHARS,
  DEFAULT_PLAN_EVERY,
  defaultStub,
  familyFactor,
  hashText,
  LOG_MARKER,
  MemoryRecallStore,
  OffloadSession,
  PlanCadence,
  RECALL_TOOL_NAME,
  TokenMeter,
  type HistorySegment,
  type OffloadSessionOptions,
  type RecallStore,
  type SessionLogSink,
  type SessionSummary,
  type SessionUsage,
  type StubInfo,
} from "./session.js";

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";
export const DEFAULT_TIMEOUT_MS = 2000;
export const MAX_ITEMS_PER_CALL = 100;

/**
 * A client that never rejects into the agent's loop (unless `raiseOnError`).
 *
 * @example
 * const gate = createGateClient({ apiKey: process.env.OFFLOAD_GATE_API_KEY, timeoutMs: 1000 });
 * const [a, b] = await gate.decideBatch([{ model_name: "gpt-5", output_tokens: 30_000 }, { model_name: "gpt-5", output_chars: 9_000 }]);
 */
export function createGateClient(options: GateClientOptions = {}): GateClient {
  const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
  const apiKey = options.apiKey ?? envKey();
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const headers = { "content-type": "application/json", accept: "application/json", ...auth };

  async function post<T>(
    path: string,
    body: unknown,
    parse: (answer: unknown) => T,
    fallback: (e: GateError) => T,
    call: CallOptions = {},
  ): Promise<T> {
    const send = (signal: AbortSignal) =>
      doFetch(`${baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal });
    try {
      const attempts = {
        timeoutMs: call.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxRetries: options.maxRetries ?? 2,
      };
      return parse(await callGate(send, call.signal ? { ...attempts, signal: call.signal } : attempts));
    } catch (error) {
      const gateError = error instanceof GateError ? error : new GateError("gate_bad_answer", String(error));
      if (call.raiseOnError ?? options.raiseOnError ?? false) throw gateError;
      return fallback(gateError);
    }
  }

  async function report(path: string, items: readonly unknown[], call?: CallOptions): Promise<GateReport> {
    const merged: Tally = { results: [], accepted: 0, unknown_decision: 0, conflict: 0, invalid: 0 };
    for (const chunk of chunks(items)) {
      const answer = await post<Tally | GateError>(path, { items: chunk }, parseTally, (error) => error, call);
      if (answer instanceof GateError) return { ok: false, error: answer };
      merged.results.push(...answer.results);
      for (const key of TALLY_KEYS) merged[key] += answer[key];
    }
    return { ...merged, ok: true } as GateReport;
  }

  return {
    raw: hc<AppType>(baseUrl, { fetch: doFetch, headers: auth }),
    decide: (request, call) => post("/v1/gate", request, parseDecision, fallbackDecision, call),
    async decideBatch(requests, call) {
      const decisions: GateDecision[] = [];
      for (const items of chunks(requests)) {
        const parse = (body: unknown) => {
          const entries = (body as { decisions?: unknown }).decisions;
          if (!Array.isArray(entries) || entries.length !== items.length)
            throw new GateError("gate_bad_answer", `expected ${items.length} decisions`);
          return entries.map(parseDecision);
        };
        decisions.push(
          ...(await post("/v1/gate/batch", { items }, parse, (e) => items.map(() => fallbackDecision(e)), call)),
        );
      }
      return decisions;
    },
    plan: (request, call) => post("/v1/plan", request, parsePlan, fallbackPlan, call),
    contextManagement: (request, call) =>
      post("/v1/context-management", request, parseContextManagement, fallbackContextManagement, call),
    reportOutcomes: (items, call) => report("/v1/outcomes", items, call),
    reportSessions: (items, call) => report("/v1/sessions", items, call),
  };
}

/** The fallback decision for an error: fire false, the reason code, the cause. */
export function fallbackDecision(error: GateError): FallbackDecision {
  return { ...fallbackOf(error, "decide"), fire: false, net_saving_usd: 0 };
}

/** The fallback plan for an error: stub nothing. */
export function fallbackPlan(error: GateError): FallbackPlan {
  return { ...fallbackOf(error, "plan"), stub: [], net_saving_usd: 0 };
}

/** The fallback clearing answer for an error: send no edit. */
export function fallbackContextManagement(error: GateError): FallbackContextManagement {
  return { ...fallbackOf(error, "price the clearing"), context_management: null, net_usd: 0 };
}

function fallbackOf(error: GateError, what: "decide" | "plan" | "price the clearing"): Fallback {
  const doing = what === "decide" ? "not offloading" : what === "plan" ? "stubbing nothing" : "sending no edit";
  return {
    fallback: true,
    reason_code: error.reasonCode,
    reason: `the gate did not ${what} (${error.reasonCode}): ${error.message}; ${doing}`,
    issues: error.issues,
    error,
  };
}

function parseDecision(body: unknown): GateDecision {
  const entry = body as { fire?: unknown; reason_code?: unknown; error?: { message?: unknown; issues?: Issue[] } };
  if (entry !== null && typeof entry === "object" && entry.error !== undefined && entry.fire === undefined) {
    return fallbackDecision(
      new GateError("gate_invalid_request", String(entry.error.message), 400, entry.error.issues ?? []),
    );
  }
  if (typeof entry?.fire !== "boolean" || typeof entry.reason_code !== "string") {
    throw new GateError("gate_bad_answer", "a decision must carry a boolean fire and a reason_code");
  }
  return { ...(body as ServerDecision), fallback: false };
}

// What the report routes answer, as this client merges it across chunks.
interface Tally {
  results: unknown[];
  accepted: number;
  unknown_decision: number;
  conflict: number;
  invalid: number;
}
const TALLY_KEYS = ["accepted", "unknown_decision", "conflict", "invalid"] as const;

function parsePlan(body: unknown): GatePlan {
  const plan = body as { stub?: unknown; reason_code?: unknown };
  if (
    !Array.isArray(plan?.stub) ||
    !plan.stub.every((id) => typeof id === "string") ||
    typeof plan.reason_code !== "string"
  ) {
    throw new GateError("gate_bad_answer", "a plan must carry stub, a list of ids, and a reason_code");
  }
  return Object.assign({}, body, { fallback: false }) as GatePlan;
}

function parseContextManagement(body: unknown): GateContextManagement {
  const answer = body as { context_management?: unknown; reason_code?: unknown };
  if (answer?.context_management === undefined || typeof answer.reason_code !== "string") {
    throw new GateError("gate_bad_answer", "a clearing answer must carry context_management and a reason_code");
  }
  return Object.assign({}, body, { fallback: false }) as GateContextManagement;
}

function parseTally(body: unknown): Tally {
  const tally = body as Partial<Tally> | null;
  if (!Array.isArray(tally?.results))
    throw new GateError("gate_bad_answer", "a report answer must carry results, a list");
  return {
    results: tally.results,
    ...Object.fromEntries(TALLY_KEYS.map((key) => [key, Number(tally[key] ?? 0)])),
  } as Tally;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += MAX_ITEMS_PER_CALL) out.push(items.slice(i, i + MAX_ITEMS_PER_CALL));
  return out;
}

function envKey(): string | undefined {
  // Node has process.env; a browser has neither, and must pass apiKey.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.OFFLOAD_GATE_API_KEY || undefined;
}
// Where the recall tool puts an original back: the gate's recall_placement ("append", its default).
export { RECALL_PLACEMENT } from "./constants.js";
