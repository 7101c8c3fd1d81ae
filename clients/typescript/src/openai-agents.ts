/**
 * offload-gate for the OpenAI Agents SDK (`@openai/agents` 0.20): a
 * `callModelInputFilter` for the run config and a recall function tool. The
 * filter rewrites the input of every model call (the SDK keeps the originals
 * in its own history), so each new large function-call output is decided once
 * and every decision is applied on every call, byte for byte. It also keeps
 * the session's books as the run goes: each model call's usage is observed
 * from the run context once the call is done (before the next call's
 * decisions), and the session ends itself when the run's agent ends. The
 * OpenAI client given `fetch: openaiDiagnosticsFetch(session)`
 * (offload-gate-client/cache-diagnostics) asks each call for prompt cache
 * diagnostics, which the books put on that call.
 *
 * @example
 * import { Agent, run } from "@openai/agents";
 * import { createGateClient, OffloadSession } from "offload-gate-client";
 * import { offloadInputFilter, recallFunctionTool } from "offload-gate-client/openai-agents";
 *
 * const session = new OffloadSession({ gate: createGateClient(), model: "gpt-5" });
 * const agent = new Agent({ name: "researcher", model: "gpt-5", tools: [webFetch, recallFunctionTool(session)] });
 * const result = await run(agent, prompt, { callModelInputFilter: offloadInputFilter(session) });
 */
import { tool, type Agent, type CallModelInputFilter, type ModelResponse } from "@openai/agents";
import { z } from "zod";
import { takeDiagnostics } from "./cache-diagnostics.js";
import type { OffloadSession } from "./session.js";

type Item = Parameters<CallModelInputFilter>[0]["modelData"]["input"][number];
type Result = Extract<Item, { type: "function_call_result" }>;

/**
 * The run config's `callModelInputFilter`: decides each new function-call
 * output the first time it is in a model call's input, and puts the stub in
 * for every offloaded one, on this call and every later one. By default it
 * also plans, like the AI SDK's middleware: outputs sent in full before (so
 * already cached) are candidates of `POST /v1/plan` at the session's cadence,
 * and all of a plan's stubs go in on one call (`{ plan: false }`: entry
 * decisions only). The recall tool's own outputs are never stubbed. On any
 * fault the input goes as it was.
 *
 * @example
 * await run(agent, prompt, { callModelInputFilter: offloadInputFilter(session) });
 */
export function offloadInputFilter(
  session: OffloadSession,
  options: { plan?: boolean; endWithRun?: boolean } = {},
): CallModelInputFilter {
  const plan = options.plan ?? true;
  const books = new RunBooks(session, options.endWithRun ?? true);
  return async ({ modelData, agent }) => {
    try {
      books.watch(agent);
      books.sync();
      const results = modelData.input.filter(isResult);
      const keptBefore = new Set(results.filter((r) => session.status(r.callId) === "kept").map((r) => r.callId));
      await Promise.all(
        results.map((item) => {
          const text = textOf(item);
          return text === null ? undefined : session.offload(item.callId, item.name, text);
        }),
      );
      if (plan && keptBefore.size > 0) await planned(session, modelData.input, keptBefore);
      const input = modelData.input.map((item) => {
        const stub = isResult(item) ? session.stubFor(item.callId) : undefined;
        // In the output's own form: a string stays a string, a text part a text part.
        if (stub === undefined) return item;
        return {
          ...item,
          output: typeof (item as Result).output === "string" ? stub : { type: "text", text: stub },
        } as Item;
      });
      return { ...modelData, input };
    } catch {
      return modelData;
    }
  };
}

// The history for a plan: each result kept in full before this call its own segment, the rest fixed.
async function planned(session: OffloadSession, input: readonly Item[], candidates: Set<string>): Promise<void> {
  const segments = input.map((item) => {
    const text = isResult(item) ? textOf(item) : null;
    return isResult(item) && candidates.has(item.callId) && text !== null
      ? { id: item.callId, tokens: session.tokensFor(item.callId, text) }
      : { tokens: session.tokensFor(undefined, JSON.stringify(item)) };
  });
  const stubbable = segments.reduce((sum, s) => sum + ("id" in s ? s.tokens : 0), 0);
  if (session.planDue(stubbable)) await session.plan(segments);
}

/**
 * The recall tool as a function tool: `{ id }` in, the original out. Its name
 * is `session.recallToolName`, the one the stubs tell the model to call.
 *
 * @example
 * new Agent({ name: "a", tools: [webFetch, recallFunctionTool(session)] });
 */
export function recallFunctionTool(session: OffloadSession) {
  return tool({
    name: session.recallToolName,
    description:
      "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names.",
    parameters: z.object({ id: z.string().describe("the tool call id named in the placeholder") }),
    execute: async ({ id }) => session.recall(id),
  });
}

/**
 * The session's usage of one model response: uncached input (input less its
 * cached tokens), output, and cache reads (`input_tokens_details.cached_tokens`).
 * Counts go on as they came: one missing stays undefined, and more cached than
 * input is a negative uncached count, so the session names them instead of
 * billing a zero.
 *
 * @example
 * usageOfResponse(response) // { input_tokens: 800, output_tokens: 60, cache_read_input_tokens: 41_000, cache_creation_input_tokens: 0 }
 */
export function usageOfResponse(response: Pick<ModelResponse, "usage">) {
  const u = response.usage as Partial<ModelResponse["usage"]> | undefined;
  if (u === undefined || u === null) return null;
  const details = Array.isArray(u.inputTokensDetails)
    ? u.inputTokensDetails
    : [u.inputTokensDetails as unknown as Record<string, number>];
  const cached = details.reduce((sum, d) => sum + (typeof d?.cached_tokens === "number" ? d.cached_tokens : 0), 0);
  return {
    input_tokens: typeof u.inputTokens === "number" ? u.inputTokens - cached : u.inputTokens,
    output_tokens: u.outputTokens,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

type Totals = { input: number; output: number; cached: number };
const cachedOf = (details: readonly Record<string, number>[] | undefined) =>
  (details ?? []).reduce((sum, d) => sum + (typeof d?.cached_tokens === "number" ? d.cached_tokens : 0), 0);
const totals = (u: Pick<RunUsage, "inputTokens" | "outputTokens" | "inputTokensDetails">): Totals => ({
  input: u.inputTokens ?? 0,
  output: u.outputTokens ?? 0,
  cached: cachedOf(u.inputTokensDetails),
});
/** One call's usage as the session takes it: input less its cache reads, and the reads. */
const usageOf = (input: number, cached: number, output: number) => ({
  input_tokens: input - cached,
  output_tokens: output,
  cache_read_input_tokens: cached,
  cache_creation_input_tokens: 0,
});
// Sessions whose books a filter keeps: observeRun leaves them alone (it would count every call twice).
const kept = new WeakSet<OffloadSession>();

/** What the books read of the SDK's run context: its summed usage and the per-request entries. */
interface RunUsage {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  inputTokensDetails: Record<string, number>[];
  requestUsageEntries?: { inputTokens: number; outputTokens: number; inputTokensDetails?: Record<string, number> }[];
}
type RunContextLike = { usage?: RunUsage };
const HOOKS = ["agent_start", "agent_tool_start", "agent_handoff", "agent_end"] as const;

/**
 * The session's books kept from the run itself. The filter is not given the
 * run context, so the agents it sees are watched: their lifecycle events
 * (start, tool start, handoff, end) carry the run context, whose usage the SDK
 * adds to as each model call completes. Every request entry not yet seen is
 * observed, one turn each, in order; the filter syncs too before deciding, so
 * a decision's turns and context are the calls before it. The agent's end
 * (the run's final output) ends the session unless `endWithRun` is false.
 */
class RunBooks {
  readonly #session: OffloadSession;
  readonly #endWithRun: boolean;
  readonly #watched = new Map<Agent<any, any>, (...args: unknown[]) => void>();
  readonly #seen = new WeakMap<object, Totals & { requests: number; entries: number }>();
  #context: RunContextLike | undefined;

  constructor(session: OffloadSession, endWithRun: boolean) {
    [this.#session, this.#endWithRun] = [session, endWithRun];
    kept.add(session);
  }

  watch(agent: Agent<any, any> | undefined): void {
    // A filter called outside a run (no agent, or not the SDK's) keeps no books, and still filters.
    if (agent === undefined || typeof agent?.on !== "function") return;
    if (this.#watched.has(agent) || this.#session.ended) return;
    const listeners = HOOKS.map((event) => {
      const listener = (context: RunContextLike) => {
        try {
          this.#context = context;
          this.sync();
          if (event === "agent_end" && this.#endWithRun) this.#end();
        } catch {
          // The books never break the run.
        }
      };
      agent.on(event, listener as never);
      return [event, listener] as const;
    });
    this.#watched.set(agent, () => {
      for (const [event, listener] of listeners) agent.off(event, listener as never);
    });
  }

  /** Observes the run context's requests not yet observed. */
  sync(): void {
    const context = this.#context;
    const usage = context?.usage;
    if (context === undefined || usage === undefined || this.#session.ended) return;
    const seen = this.#seen.get(context) ?? { requests: 0, entries: 0, input: 0, output: 0, cached: 0 };
    const entries = usage.requestUsageEntries ?? [];
    const now = { ...totals(usage), requests: usage.requests, entries: entries.length };
    for (const entry of entries.slice(seen.entries)) {
      const details = entry.inputTokensDetails ?? {};
      // With the client's fetch asking (openaiDiagnosticsFetch), the call's prompt cache diagnostics.
      const diagnostics = takeDiagnostics(this.#session);
      const usage = usageOf(entry.inputTokens, details.cached_tokens ?? 0, entry.outputTokens);
      this.#session.observe(diagnostics ? { ...usage, diagnostics } : usage);
    }
    // Requests the SDK kept no entry for (a response with no usage): what they added, as one call.
    if (now.requests - seen.requests > now.entries - seen.entries) {
      const [input, output, cached] = [now.input - seen.input, now.output - seen.output, now.cached - seen.cached];
      const inEntries = entries
        .slice(seen.entries)
        .map((e) => totals({ ...e, inputTokensDetails: [e.inputTokensDetails ?? {}] }));
      const sum = (k: "input" | "output" | "cached") => inEntries.reduce((acc, t) => acc + t[k], 0);
      this.#session.observe(usageOf(input - sum("input"), cached - sum("cached"), output - sum("output")));
    }
    this.#seen.set(context, now);
  }

  #end(): void {
    for (const off of this.#watched.values()) off();
    this.#watched.clear();
    void this.#session.end();
  }
}

/**
 * Observes every model response of a finished run, one turn each, in order.
 * Not needed with `offloadInputFilter`, which keeps the books as the run goes:
 * for a session it keeps, this does nothing.
 *
 * @example
 * observeRun(session, result); // a session driven by hand, without the filter
 */
export function observeRun(
  session: OffloadSession,
  result: { rawResponses: readonly Pick<ModelResponse, "usage">[] },
): void {
  if (kept.has(session)) return;
  for (const response of result.rawResponses) session.observe(usageOfResponse(response));
}

function isResult(item: Item): item is Result {
  return item.type === "function_call_result";
}

// An output the filter can stand a text stub in for: a string, a text part, or text parts only.
function textOf(item: Result): string | null {
  const output = item.output as unknown;
  if (typeof output === "string") return output;
  const parts = Array.isArray(output) ? output : [output];
  if (!parts.every((p) => p?.type === "text" || p?.type === "input_text")) return null;
  return parts.map((p) => p.text as string).join("\n");
}
