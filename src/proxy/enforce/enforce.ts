/**
 * @module proxy/enforce/enforce
 *
 * Enforce mode for one Messages request (docs/design/proxy.md §8): the
 * session's record read (what it must keep sending), the gate asked about
 * each tool output sent for the first time, the fates recorded, and the
 * request rewritten with the stubs, the recall tool and the recalls put
 * back; then, when the model's answer calls only the recall tool, the
 * originals appended and the provider asked again, so the client gets one
 * answer. Everything fails open: a request the proxy cannot enforce goes
 * upstream as the client sent it, and its session is observed from then on.
 */
import { CHARS_PER_TOKEN } from "../../gate";
import { CHAT_DIALECT } from "./chat";
import { type Dialect, stubText, type ToolOutput } from "./dialect";
import { MESSAGES_DIALECT } from "./messages";
import { RESPONSES_DIALECT } from "./responses";
import { ENFORCED_TOOL } from "./mode";
import type { EnforceSession, NewFate, RecallExchange } from "./store";

/** How the proxy asks the gate's own API in-process. */
export type GateFetch = (request: Request) => Promise<Response>;

/** Outputs shorter than this are kept without asking the gate: our clients' default (clients/constants.json's default_min_chars). */
export const MIN_STUB_CHARS = 2000;
/** Most recall rounds the proxy resolves for one request; past it the answer goes to the client as it is. */
export const MAX_RECALL_ROUNDS = 4;
/** Most tool outputs one request decides: POST /v1/gate/batch's limit. */
const MAX_BATCH = 100;

/** The session's Durable Object, as enforce mode calls it. */
export type EnforceStore = Pick<EnforceSession, "open" | "commit" | "recall" | "original" | "stop">;

/** Who and where: what enforce mode needs besides the request. */
export interface EnforceContext {
  tenant: string;
  gateKey: string | null;
  /** The session's ledger id: the gate's session_id, the store's name. */
  session: string;
  /** The session's store, or null when the deployment binds none. */
  store: EnforceStore | null;
  gate: GateFetch;
}

/** What goes upstream, and what the answer's reader needs to resolve recalls (null: the answer passes as it is). */
export interface Enforced {
  body: Uint8Array;
  recalls: RecallPlan | null;
  /** Whether the request was rewritten, and why not when it was not. */
  outcome: "enforced" | "held_out" | "observed" | "failed_open";
  detail: string;
}

/** A request whose answer may call the recall tool. */
export interface RecallPlan {
  dialect: Dialect;
  body: Record<string, unknown>;
  /** Where a recall in answer to it goes back in: the client's message count. */
  after: number;
  stubbed: ReadonlySet<string>;
  original: (callId: string) => Promise<string | null>;
  store: EnforceStore;
}

/**
 * The dialect of an endpoint enforce mode acts on (docs/design/proxy.md
 * §8), or null for one it does not.
 *
 * @example
 * dialectOf("chat") === CHAT_DIALECT // true
 */
export function dialectOf(endpoint: string): Dialect | null {
  if (endpoint === "messages") return MESSAGES_DIALECT;
  if (endpoint === "chat") return CHAT_DIALECT;
  if (endpoint === "responses") return RESPONSES_DIALECT;
  return null;
}

// Sessions whose store failed in this isolate: from the request that went unchanged on, they stay unchanged.
const stopped = new Set<string>();
const MAX_STOPPED = 10_000;
const logged = new Set<string>();

function failOnce(stage: string, error: unknown): void {
  if (logged.has(stage)) return;
  logged.add(stage);
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  console.error(
    `offload-gate: proxy: enforce: ${stage} failed (the request went through unchanged; logged once): ${detail}`,
  );
}

/**
 * The request as enforce mode sends it upstream. Never throws: anything it
 * cannot do leaves the client's bytes as they are.
 *
 * @example
 * const { body, recalls } = await enforceRequest(MESSAGES_DIALECT, bytes, parsed, { tenant, gateKey, session, store, gate });
 */
export async function enforceRequest(
  dialect: Dialect,
  bytes: Uint8Array,
  parsed: unknown,
  context: EnforceContext,
): Promise<Enforced> {
  const unchanged = (outcome: Enforced["outcome"], detail: string): Enforced => ({
    body: bytes,
    recalls: null,
    outcome,
    detail,
  });
  const view = dialect.read(parsed);
  if (view === null) return unchanged("observed", "not a request of its API");
  const { store } = context;
  const key = `${context.tenant}/${context.session}`;
  if (store === null) return unchanged("observed", "no PROXY_ENFORCE binding");
  if (stopped.has(key)) return unchanged("failed_open", "the session's store failed earlier");
  const body = parsed as Record<string, unknown>;
  try {
    const session = await store.open({
      tenant: context.tenant,
      start: view.start,
      call_ids: view.outputs.map((output) => output.call_id),
      reason: view.refusal,
    });
    if (session.status === "off") return unchanged("observed", session.reason);
    const stubs = new Map<string, string>();
    const known = new Set<string>();
    const lengths = new Map<string, number>();
    for (const fate of session.known) {
      known.add(fate.call_id);
      if (fate.stub !== null) stubs.set(fate.call_id, fate.stub);
      if (fate.stub !== null && fate.chars !== undefined) lengths.set(fate.call_id, fate.chars);
    }
    const fresh = view.outputs.filter((output) => !known.has(output.call_id));
    if (fresh.length > 0) {
      const fates = await store.commit(await decideFresh(fresh, view.model, context));
      for (const fate of fates) if (fate.stub !== null) stubs.set(fate.call_id, fate.stub);
    }
    // The original as the client still sends it; one the client has since cleared or changed
    // (its own compaction) comes from the store, else the recall says it is gone.
    const texts = new Map(
      view.outputs
        .filter((output) => (lengths.get(output.call_id) ?? output.text.length) === output.text.length)
        .map((output) => [output.call_id, output.text]),
    );
    const original = async (callId: string) => texts.get(callId) ?? (await store.original(callId));
    const originals = await originalsOf(session.recalls, original);
    const rewritten = dialect.rewrite(body, {
      stubs,
      recalls: session.recalls,
      original: (callId) => originals.get(callId) ?? null,
    });
    const stubbed = new Set(stubs.keys());
    const plan: RecallPlan = { dialect, body: rewritten, after: view.messages, stubbed, original, store };
    return {
      body: new TextEncoder().encode(JSON.stringify(rewritten)),
      recalls: stubbed.size > 0 || session.recalls.length > 0 ? plan : null,
      outcome: "enforced",
      detail: `${stubs.size} stubbed`,
    };
  } catch (error) {
    // The store failed: the client's bytes go, and the session stays unchanged from here on (never half-enforced).
    failOnce("the session's store", error);
    if (stopped.size >= MAX_STOPPED) stopped.delete(stopped.values().next().value as string);
    stopped.add(key);
    await store.stop("the session's store failed; observed from then on").catch(() => undefined);
    return unchanged("failed_open", "the session's store failed");
  }
}

/**
 * Records a held-out session's decisions, as the gate draws them (its answer
 * is the holdout's `fire: false`), so the ledger compares the two arms on
 * decisions made alike; the request itself went upstream untouched. Run in
 * waitUntil; never throws.
 *
 * @example
 * ctx.waitUntil(recordHeldOut(MESSAGES_DIALECT, parsed, context));
 */
export async function recordHeldOut(dialect: Dialect, parsed: unknown, context: EnforceContext): Promise<void> {
  const view = dialect.read(parsed);
  if (view === null) return;
  const fresh = view.outputs.filter((output) => output.latest);
  await decideFresh(fresh, view.model, context);
}

/** The originals the recorded recalls answered with, read once for the rewrite. */
async function originalsOf(
  recalls: readonly RecallExchange[],
  original: (callId: string) => Promise<string | null>,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const exchange of recalls)
    for (const result of exchange.results)
      if (result.output !== null && !found.has(result.output)) {
        const text = await original(result.output);
        if (text !== null) found.set(result.output, text);
      }
  return found;
}

/**
 * Each fresh output's fate: too small, not text, an error or a recall's
 * own answer is kept without asking; the rest as the gate decides, in
 * process, recorded in the ledger under {@link ENFORCED_TOOL}. A gate that
 * fails keeps them all (when in doubt, don't fire).
 */
async function decideFresh(fresh: ToolOutput[], model: string, context: EnforceContext): Promise<NewFate[]> {
  const fates: NewFate[] = fresh.map((output) => ({
    call_id: output.call_id,
    stub: null,
    original: null,
    decision_id: null,
  }));
  const asked = fresh.flatMap((output, index) =>
    output.stubbable && output.text.length >= MIN_STUB_CHARS ? [index] : [],
  );
  try {
    for (let start = 0; start < asked.length; start += MAX_BATCH) {
      const chunk = asked.slice(start, start + MAX_BATCH);
      const decisions = await askGate(
        chunk.map((index) => fresh[index]!),
        model,
        context,
      );
      decisions.forEach((decision, i) => {
        const index = chunk[i]!;
        const output = fresh[index]!;
        fates[index]!.decision_id = decision.decision_id;
        if (decision.fire) {
          fates[index]!.stub = stubText(output.call_id, output.tool ?? "tool", output.text.length);
          fates[index]!.original = output.text;
        }
      });
    }
  } catch (error) {
    failOnce("the gate's decision", error);
    for (const fate of fates) {
      fate.stub = null;
      fate.original = null;
    }
  }
  return fates;
}

async function askGate(
  outputs: ToolOutput[],
  model: string,
  context: EnforceContext,
): Promise<{ fire: boolean; decision_id: string | null }[]> {
  const items = outputs.map((output) => ({
    model_name: model,
    output_chars: output.text.length,
    pricing_mode: "cache_aware",
    context_tokens: Math.round(output.before / CHARS_PER_TOKEN),
    session_id: context.session,
    tool_name: ENFORCED_TOOL,
  }));
  const response = await context.gate(
    new Request("http://offload-gate.internal/v1/gate/batch", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(context.gateKey === null ? {} : { authorization: `Bearer ${context.gateKey}` }),
      },
      body: JSON.stringify({ items }),
    }),
  );
  if (!response.ok) throw new Error(`POST /v1/gate/batch answered ${response.status}`);
  const answer = (await response.json()) as { decisions?: { fire?: unknown; decision_id?: unknown }[] };
  if (!Array.isArray(answer.decisions) || answer.decisions.length !== outputs.length)
    throw new Error("POST /v1/gate/batch answered another number of decisions");
  return answer.decisions.map((decision) => ({
    fire: decision.fire === true,
    decision_id: typeof decision.decision_id === "string" ? decision.decision_id : null,
  }));
}

/** Sends a body upstream as the client's request would have gone: the same path, headers and key. */
export type SendUpstream = (body: Uint8Array) => Promise<Response>;

/**
 * The answer the client gets: the provider's, unless it calls only the
 * recall tool; then the proxy appends the originals as the tool's results,
 * records the exchange (later requests put it back where it happened) and
 * asks again, up to {@link MAX_RECALL_ROUNDS} times. An answer is read whole
 * before it is handed on (a stream too: whether it calls the recall tool is
 * known only at its end). A provider error is handed on as it is. Each
 * answer the proxy resolved itself goes to `onResolved`, so its usage
 * reaches the session's bill.
 *
 * @example
 * const response = await resolveRecalls(plan, await send(body), send);
 */
export async function resolveRecalls(
  plan: RecallPlan,
  first: Response,
  send: SendUpstream,
  onResolved: (bytes: Uint8Array, contentType: string) => void = () => undefined,
): Promise<Response> {
  let response = first;
  const list = plan.body[plan.dialect.list];
  const messages = Array.isArray(list) ? [...(list as unknown[])] : [];
  for (let round = 0; ; round++) {
    if (!response.ok || response.body === null) return response;
    const bytes = new Uint8Array(await response.arrayBuffer());
    const current = response;
    const handOn = () =>
      new Response(bytes, { status: current.status, statusText: current.statusText, headers: current.headers });
    if (round >= MAX_RECALL_ROUNDS || !Array.isArray(list)) return handOn();
    let next: Uint8Array;
    try {
      const streamed = (current.headers.get("content-type") ?? "").includes("text/event-stream");
      const recall = plan.dialect.answerRecall(new TextDecoder().decode(bytes), streamed);
      if (recall === null) return handOn();
      const exchange: RecallExchange = {
        after: plan.after,
        assistant: JSON.stringify(recall.assistant),
        results: recall.calls.map((call) => ({
          tool_use_id: call.tool_use_id,
          output: call.output !== null && plan.stubbed.has(call.output) ? call.output : null,
        })),
      };
      const originals = await originalsOf([exchange], plan.original);
      await plan.store.recall(exchange);
      messages.push(...plan.dialect.recallMessages(exchange, (id) => originals.get(id) ?? null));
      next = new TextEncoder().encode(JSON.stringify({ ...plan.body, [plan.dialect.list]: messages }));
    } catch (error) {
      // Not recorded, so not resent later: the client gets the answer as it came, recall call and all.
      failOnce("resolving a recall", error);
      return handOn();
    }
    // The provider billed this round too: the session's bill counts its usage beside the last one's (docs/design/proxy.md §8).
    onResolved(bytes, current.headers.get("content-type") ?? "");
    response = await send(next);
  }
}
