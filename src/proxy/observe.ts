/**
 * @module proxy/observe
 *
 * What the gate would have done with one exchange, worked out after the
 * answer has started on its way (docs/design/proxy.md §6–§7): the request
 * read into replay's trace, each tool output it sends for the first time
 * decided by the cache-aware gate in-process (POST /v1/gate/batch through
 * the worker's own fetch: no network hop, the tenant's priors, breaker,
 * holdout and ledger record as for any client), the outputs it carries
 * again counted (cached or not, quoted since or not, by replay's recall
 * rules), and the answer's usage added to the session's bill. Everything
 * here fails open: a fault is logged once per kind and the exchange is
 * simply not observed.
 */
import { CHARS_PER_TOKEN } from "../gate";
import {
  chargedRecall,
  detectRecalls,
  hashText,
  recallAfter,
  recordedInput,
  TraceBuilder,
  type Usage,
} from "../replay";
import { OBSERVED_TOOL_PREFIX, TOOL_NAME_PATTERN } from "../storage/rules";
import { adapterFor, freshOutputs, type ObservedEndpoint, type WireAnswer, type WireRequest } from "./adapters";
import type { ProxyRoute } from "./route";
import { SESSION_HEADER } from "./constants";
import { followChain, sessionOf } from "./session";
import type { SessionUpdate } from "./session-state";

/** One exchange as the proxy saw it: copies of what went up and what came back. */
export interface Exchange {
  route: ProxyRoute;
  tenant: string;
  /** The gate key the request presented (for the in-process gate call; never stored). */
  gateKey: string | null;
  requestHeaders: Headers;
  /** The proxy's copy of the request's body, read beside the upload; null when there was none, or it was over the limit. */
  requestBody: Promise<Uint8Array | null>;
  responseType: string;
  /** The proxy's branch of the answer's stream: read to its end or cancelled, never left waiting. */
  responseBody: ReadableStream<Uint8Array>;
  /** Answers the proxy resolved itself before this one (enforce mode's recall rounds): billed too, never seen by the client. */
  earlierAnswers?: readonly { type: string; bytes: Uint8Array }[];
}

type ObserveEnv = Partial<Pick<Env, "PROXY_SESSIONS">>;
type GateFetch = (request: Request) => Promise<Response>;

/** Most of an answer read for its usage; past it the proxy's branch is let go (the client's is untouched). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/**
 * Most characters of a request the recall rules read (about 500,000 tokens, past every model's
 * usual context): they read all of its text, and the isolate that runs them also answers the next
 * request, so a larger request is counted (carried, cached) without looking for quotes
 * (docs/design/proxy.md §6).
 */
export const RECALL_SCAN_CHARS = 2_000_000;
/** Most tool outputs one request decides: POST /v1/gate/batch's limit. */
const MAX_BATCH = 100;
export { OBSERVED_TOOL_PREFIX } from "../storage/rules";

const logged = new Set<string>();

/** Logs a fault of the proxy's own work once per kind and isolate: the request already went through. */
function failOnce(stage: string, error: unknown): void {
  if (logged.has(stage)) return;
  logged.add(stage);
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.error(`offload-gate: proxy: ${stage} failed (the request went through unchanged; logged once): ${detail}`);
}

/**
 * Observes one exchange; never throws.
 *
 * @example
 * ctx.waitUntil(observeExchange(exchange, env, (inner) => worker.fetch(inner, env, ctx)));
 */
export async function observeExchange(exchange: Exchange, env: ObserveEnv, gate: GateFetch): Promise<void> {
  const adapter = adapterFor(exchange.route.endpoint as ObservedEndpoint);
  const answer = readAnswer(exchange, adapter.answer).catch((error) => {
    failOnce("reading the answer's usage", error);
    return { usage: null, responseId: null } satisfies WireAnswer;
  });
  try {
    // The answer first: workerd runs the isolate on one thread, so reading a request of megabytes while
    // the answer is still on its way would hold the answer up (docs/performance/proxy.md).
    const done = await withEarlier(await answer, exchange, adapter.answer);
    // The answer's last chunk reached both branches of the tee at once: a turn of the event loop lets the
    // runtime hand the client's on before the isolate turns to the request's megabytes.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const bytes = await exchange.requestBody;
    let body: unknown;
    try {
      if (bytes === null) throw new Error("no body to read");
      body = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      // Not JSON: the provider answers it; there is nothing to observe.
      return;
    }
    const wire = adapter.request(body);
    if (wire === null) return;
    await observe(exchange, wire, env, gate, done);
  } catch (error) {
    failOnce("observing the exchange", error);
    await answer;
  }
}

async function observe(
  exchange: Exchange,
  wire: WireRequest,
  env: ObserveEnv,
  gate: GateFetch,
  done: WireAnswer,
): Promise<void> {
  const session = sessionOf({
    header: exchange.requestHeaders.get(SESSION_HEADER),
    userId: wire.userId,
    promptCacheKey: wire.promptCacheKey,
    previousResponseId: wire.previousResponseId,
    prefix: wire.prefix,
  });
  const base = ledgerSessionBase(session.id, wire.model);
  const store = env.PROXY_SESSIONS?.get(env.PROXY_SESSIONS.idFromName(`${exchange.tenant}/${base}`));
  const ledgerSession = store === undefined ? base : (await store.open(base)).ledger_session;

  const fresh = freshOutputs(wire);
  const freshSet = new Set(fresh);
  const decided = await decide(
    gate,
    exchange.gateKey,
    wire,
    fresh,
    ledgerSession,
    exchange.route.provider === "anthropic",
  ).catch((error) => {
    failOnce("the gate's decision", error);
    return [];
  });

  const totalChars = wire.parts.reduce((sum, part) => sum + part.text.length, 0);
  // Replay's recall rules read every part's text: past the budget a request is counted without them.
  const recalls = totalChars <= RECALL_SCAN_CHARS ? detectRecalls(traceOf(wire, exchange.route.provider)) : null;
  if (done.responseId !== null && exchange.route.endpoint === "responses") followChain(done.responseId, session.id);

  let through = 0;
  const carried: SessionUpdate["carried"] = [];
  wire.parts.forEach((part, index) => {
    const start = through;
    through += part.text.length;
    if (part.kind !== "tool_output" || freshSet.has(index)) return;
    carried.push({
      key: outputKey(part.call_id, part.text),
      // Past its middle: robust to the characters-to-tokens estimate, and never true of an output written afresh.
      cached: reachedByCache(done.usage, start + part.text.length / 2, totalChars),
      ...recallRange(recalls, index),
    });
  });
  await store?.record({
    tenant: exchange.tenant,
    ledger_session: ledgerSession,
    model: wire.model,
    at: Date.now(),
    decisions: decided,
    carried,
    usage: done.usage,
  });
}

/**
 * The ledger's id for a session of one model: the session's own id and a
 * short digest of the model (a harness that mixes models in one session,
 * as Claude Code does for its small side calls, bills each apart).
 *
 * @example
 * ledgerSessionBase("px:u:0a1b2c3d4e5f60", "claude-sonnet-4-5") // "px:u:0a1b2c3d4e5f60.m…"
 */
export function ledgerSessionBase(session: string, model: string): string {
  const suffix = `.m${hashText(model).toString(36).slice(0, 6)}`;
  // Room for the suffix and a generation (".99") in the ledger's 128 characters.
  return `${session.slice(0, 128 - suffix.length - 4)}${suffix}`;
}

/**
 * Whether a request's cache read reached past a point of its input: the
 * point's share of the input's characters, in the request's own recorded
 * tokens, at most the tokens read from the cache. The proxy asks it of each
 * carried output's middle (docs/design/proxy.md §6).
 *
 * @example
 * reachedByCache({ input: 10, cache_read: 900, cache_write_5m: 90, cache_write_1h: 0, output: 5 }, 800, 1000) // true
 */
export function reachedByCache(usage: Usage | null, through: number, total: number): boolean {
  if (usage === null || total === 0) return false;
  return (through / total) * recordedInput(usage) <= usage.cache_read;
}

/**
 * One carried output's recall evidence as a range, by replay's one rule (docs/design/learning.md §8):
 * the low end a charged recall (a quote with no re-read first), the high end any detection at or
 * after the call that first carried it. Both false when the request was too large to scan.
 *
 * @example
 * recallRange(detectRecalls(trace), 3) // { recalled: false, recalled_high: true }: re-read, never quoted
 */
export function recallRange(
  recalls: ReturnType<typeof detectRecalls> | null,
  index: number,
): { recalled: boolean; recalled_high: boolean } {
  if (recalls === null) return { recalled: false, recalled_high: false };
  const found = recalls.byPart.get(index);
  const first = recalls.firstCall[index]!;
  return { recalled: chargedRecall(found, first) !== null, recalled_high: recallAfter(found, first) !== null };
}

/** The key a tool output is known by across a session's requests: its call id, else its text, hashed. */
function outputKey(callId: string | null, text: string): string {
  return hashText(callId === null ? `text\u0000${text}` : `call\u0000${callId}`).toString(36);
}

/** The tool name the ledger keeps an observed decision under. */
function observedTool(tool: string | null): string {
  const name = `${OBSERVED_TOOL_PREFIX}${(tool ?? "unknown").replace(/[^A-Za-z0-9._:/-]/g, "_")}`.slice(0, 64);
  return TOOL_NAME_PATTERN.test(name) ? name : `${OBSERVED_TOOL_PREFIX}unknown`;
}

/**
 * The request as replay's trace: every earlier answer closes a call whose
 * input is everything before it, and the request itself is the last call,
 * so replay's recall rules (src/replay/recalls.ts) read the conversation
 * exactly as they read a transcript.
 */
function traceOf(wire: WireRequest, provider: string): ReturnType<TraceBuilder["finish"]> {
  // The wire format each transcript format logs: Claude Code logs Messages, Codex logs Responses.
  const builder = new TraceBuilder(provider === "anthropic" ? "claude-code" : "codex", "proxy");
  const starts = new Set(wire.answers);
  wire.parts.forEach((part, index) => {
    if (starts.has(index)) builder.call(wire.model, null, null, index);
    // The recall rules read the text, never the hash: the part's index stands in, unhashed.
    builder.add({ kind: part.kind, text: part.text, tool: part.tool, call_id: part.call_id, hash: index });
  });
  builder.call(wire.model, null, null, wire.parts.length);
  return builder.finish();
}

/** The tool each output answers, by call id, from the request's own calls. */
function toolsByCall(wire: WireRequest): Map<string, string> {
  const tools = new Map<string, string>();
  for (const part of wire.parts)
    if (part.kind === "tool_call" && part.call_id !== null && part.tool !== null) tools.set(part.call_id, part.tool);
  return tools;
}

/**
 * Asks the gate about each fresh tool output, in batches, through the
 * worker's own fetch, with the tenant's key: the decision is the gate's,
 * recorded in the ledger with its holdout draw like any client's.
 */
async function decide(
  gate: GateFetch,
  gateKey: string | null,
  wire: WireRequest,
  fresh: number[],
  session: string,
  anthropic: boolean,
): Promise<SessionUpdate["decisions"]> {
  if (fresh.length === 0) return [];
  const tools = toolsByCall(wire);
  const before: number[] = [];
  let chars = 0;
  for (const part of wire.parts) {
    before.push(chars);
    chars += part.text.length;
  }
  const decided: SessionUpdate["decisions"] = [];
  for (let start = 0; start < fresh.length; start += MAX_BATCH) {
    const chunk = fresh.slice(start, start + MAX_BATCH);
    const items = chunk.map((index) => {
      const part = wire.parts[index]!;
      const tool = part.tool ?? (part.call_id === null ? null : (tools.get(part.call_id) ?? null));
      return {
        model_name: wire.model,
        output_chars: part.text.length,
        pricing_mode: "cache_aware",
        context_tokens: Math.round(before[index]! / CHARS_PER_TOKEN),
        // Anthropic caches only what a marker asks for: without one, no later turn reads this prefix from the cache.
        ...(wire.ttl === "1h" ? { cache_ttl: "1h" } : {}),
        ...(wire.ttl === null && anthropic ? { cache_hit_rate: 0 } : {}),
        session_id: session,
        tool_name: observedTool(tool),
      };
    });
    const response = await gate(
      new Request("http://offload-gate.internal/v1/gate/batch", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(gateKey === null ? {} : { authorization: `Bearer ${gateKey}` }),
        },
        body: JSON.stringify({ items }),
      }),
    );
    if (!response.ok) throw new Error(`POST /v1/gate/batch answered ${response.status}`);
    const answer = (await response.json()) as { decisions?: { decision_id?: unknown; fire?: unknown }[] };
    (answer.decisions ?? []).forEach((decision, i) => {
      const part = wire.parts[chunk[i]!];
      if (part === undefined || typeof decision.decision_id !== "string") return;
      decided.push({
        key: outputKey(part.call_id, part.text),
        decision_id: decision.decision_id,
        fired: decision.fire === true,
      });
    });
  }
  return decided;
}

/**
 * The answer with the usage of every earlier round the proxy resolved
 * itself added in, so the session's bill holds each upstream response
 * exactly once (docs/design/proxy.md §8).
 */
async function withEarlier(
  done: WireAnswer,
  exchange: Exchange,
  merge: (value: unknown, into: WireAnswer) => void,
): Promise<WireAnswer> {
  let usage = done.usage;
  for (const earlier of exchange.earlierAnswers ?? []) {
    const body = new Response(earlier.bytes).body;
    if (body === null) continue;
    const read = await readAnswer({ ...exchange, responseType: earlier.type, responseBody: body }, merge);
    usage = addUsage(usage, read.usage);
  }
  return { ...done, usage };
}

/** Two usages summed field by field; a missing one adds nothing. */
function addUsage(a: Usage | null, b: Usage | null): Usage | null {
  if (a === null || b === null) return a ?? b;
  return {
    input: a.input + b.input,
    cache_read: a.cache_read + b.cache_read,
    cache_write_5m: a.cache_write_5m + b.cache_write_5m,
    cache_write_1h: a.cache_write_1h + b.cache_write_1h,
    output: a.output + b.output,
  };
}

/**
 * Reads the proxy's branch of the answer for its usage: a stream's events
 * one by one as they come (nothing but the current event is held), or a
 * JSON body whole, up to {@link MAX_ANSWER_BYTES}; past that the branch is
 * let go and the answer has no usage.
 */
async function readAnswer(exchange: Exchange, merge: (value: unknown, into: WireAnswer) => void): Promise<WireAnswer> {
  const into: WireAnswer = { usage: null, responseId: null };
  const reader = exchange.responseBody.getReader();
  const decoder = new TextDecoder();
  const streamed = exchange.responseType.includes("text/event-stream");
  let pending = "";
  let size = 0;
  const event = (line: string) => {
    if (!line.startsWith("data:")) return;
    const data = line.slice(5).trim();
    if (data === "" || data === "[DONE]") return;
    try {
      merge(JSON.parse(data), into);
    } catch {
      // An event that is not JSON carries no usage.
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    pending += decoder.decode(value, { stream: true });
    if (streamed) {
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        event(pending.slice(0, newline).replace(/\r$/, ""));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
    }
    if ((streamed ? pending.length : size) > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return into;
    }
  }
  pending += decoder.decode();
  if (streamed) event(pending);
  else {
    try {
      merge(JSON.parse(pending), into);
    } catch {
      // A body that is not JSON carries no usage.
    }
  }
  return into;
}
