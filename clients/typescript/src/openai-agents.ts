/**
 * offload-gate for the OpenAI Agents SDK (`@openai/agents` 0.20): a
 * `callModelInputFilter` for the run config, a recall function tool, and the
 * run's bill from its responses. The filter rewrites the input of every model
 * call (the SDK keeps the originals in its own history), so each new large
 * function-call output is decided once and every decision is applied on every
 * call, byte for byte.
 *
 * @example
 * import { Agent, run } from "@openai/agents";
 * import { createGateClient, OffloadSession } from "offload-gate-client";
 * import { offloadInputFilter, recallFunctionTool, observeRun } from "offload-gate-client/openai-agents";
 *
 * const session = new OffloadSession({ gate: createGateClient(), model: "gpt-5" });
 * const agent = new Agent({ name: "researcher", model: "gpt-5", tools: [webFetch, recallFunctionTool(session)] });
 * const result = await run(agent, prompt, { callModelInputFilter: offloadInputFilter(session) });
 * observeRun(session, result);
 * await session.end();
 */
import { tool, type CallModelInputFilter, type ModelResponse } from "@openai/agents";
import { z } from "zod";
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
export function offloadInputFilter(session: OffloadSession, options: { plan?: boolean } = {}): CallModelInputFilter {
  const plan = options.plan ?? true;
  return async ({ modelData }) => {
    try {
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

/**
 * Observes every model response of a finished run (or of a streamed one
 * after it completed), one turn each, in order.
 *
 * @example
 * const result = await run(agent, prompt, { callModelInputFilter: offloadInputFilter(session) });
 * observeRun(session, result);
 */
export function observeRun(
  session: OffloadSession,
  result: { rawResponses: readonly Pick<ModelResponse, "usage">[] },
): void {
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
