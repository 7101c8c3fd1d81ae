/**
 * offload-gate for LangChain.js v1 (`createAgent`): a middleware made with
 * `createMiddleware`. It decides in `wrapToolCall` (the stub, not the output,
 * goes into the agent's state, so every later prompt replays it), registers
 * the recall tool itself, observes each model call's usage in
 * `wrapModelCall`, and ends the session in `afterAgent`.
 *
 * @example
 * import { createAgent } from "langchain";
 * import { createGateClient, OffloadSession } from "offload-gate-client";
 * import { offloadGateMiddleware } from "offload-gate-client/langchain";
 *
 * const session = new OffloadSession({ gate: createGateClient(), model: "claude-opus-4-6" });
 * const agent = createAgent({ model, tools, middleware: [offloadGateMiddleware(session)] });
 * await agent.invoke({ messages: [{ role: "user", content: "Summarize the report" }] }); // the session is ended
 */
import { ToolMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createMiddleware } from "langchain";
import type { OffloadSession } from "./session.js";

export interface LangChainOffloadOptions {
  /** End the session (report outcomes and the bill) when the agent finishes. Default true; false for an agent invoked again on the same thread. */
  endOnAgentEnd?: boolean;
  /**
   * Ask `POST /v1/plan` which results the agent's state holds in full (already cached) to stub,
   * all in one rewrite of the prompt: at most once every `planEvery` calls of the session, or
   * sooner once the stubbable tokens reach the batch the last paying plan stubbed. Default true.
   */
  plan?: boolean;
}

/**
 * The middleware for `createAgent({ middleware: [...] })`.
 *
 * @example
 * const agent = createAgent({ model, tools: [fetchReport], middleware: [offloadGateMiddleware(session)] });
 */
export function offloadGateMiddleware(session: OffloadSession, options: LangChainOffloadOptions = {}) {
  const endOnAgentEnd = options.endOnAgentEnd ?? true;
  const plan = options.plan ?? true;
  return createMiddleware({
    name: "OffloadGate",
    tools: [recallTool(session)],
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const id = request.toolCall.id;
      if (!ToolMessage.isInstance(result) || id === undefined || typeof result.content !== "string") return result;
      try {
        const text = await session.offload(id, request.toolCall.name, result.content);
        if (text === result.content) return result;
        return new ToolMessage({
          content: text,
          tool_call_id: result.tool_call_id,
          name: result.name,
          id: result.id,
          status: result.status,
        });
      } catch {
        return result;
      }
    },
    wrapModelCall: async (request, handler) => {
      let messages = request.messages;
      try {
        messages = await planned(session, request.messages, plan);
      } catch {
        // Never into the agent's loop: the prompt as it was.
      }
      const response = await handler(messages === request.messages ? request : { ...request, messages });
      session.observe(usageOf(response));
      return response;
    },
    afterAgent: async () => {
      if (endOnAgentEnd) await session.end();
      return undefined;
    },
  });
}

/**
 * The prompt with every plan's stubs in: the state keeps the results in full,
 * so each call's prompt stands the same stubs in for them, byte for byte.
 * When a plan is due, its candidates are the results held in full.
 */
async function planned(session: OffloadSession, messages: BaseMessage[], plan: boolean): Promise<BaseMessage[]> {
  const idOf = (m: BaseMessage) =>
    ToolMessage.isInstance(m) && typeof m.content === "string" ? m.tool_call_id : undefined;
  if (plan) {
    const segments = messages.map((m) => {
      const id = idOf(m);
      const text = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
      return id !== undefined && session.status(id) === "kept"
        ? { id, tokens: session.tokensFor(id, text) }
        : { tokens: session.tokensFor(undefined, session.stubFor(id ?? "") ?? text) };
    });
    const stubbable = segments.reduce((sum, s) => sum + ("id" in s ? s.tokens : 0), 0);
    if (session.planDue(stubbable)) await session.plan(segments);
  }
  if (!messages.some((m) => session.stubFor(idOf(m) ?? "") !== undefined && m.content !== session.stubFor(idOf(m)!)))
    return messages;
  return messages.map((m) => {
    const id = idOf(m);
    const stub = id === undefined ? undefined : session.stubFor(id);
    if (stub === undefined || !ToolMessage.isInstance(m) || m.content === stub) return m;
    return new ToolMessage({ content: stub, tool_call_id: m.tool_call_id, name: m.name, id: m.id, status: m.status });
  });
}

/**
 * The recall tool (`{ id }` in, the original out), named `session.recallToolName`.
 * The middleware registers it; use this only to offer it elsewhere.
 *
 * @example
 * const recall = recallTool(session); // await recall.invoke({ id: "call_1" })
 */
export function recallTool(session: OffloadSession) {
  return tool(async ({ id }: { id: string }) => session.recall(id), {
    name: session.recallToolName,
    description:
      "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names.",
    schema: {
      type: "object",
      properties: { id: { type: "string", description: "the tool call id named in the placeholder" } },
      required: ["id"],
    },
  });
}

/**
 * The session's usage shape from a LangChain message's `usage_metadata`
 * (whose `input_tokens` include cache reads and writes). A message without
 * usage is null, and a count it lacks stays undefined, so the session names
 * it instead of billing a zero; `input_token_details.ephemeral_1h_input_tokens`,
 * when the provider package reports it, bills those writes at the 1-hour rate.
 *
 * @example
 * usageOf(new AIMessage({ content: "", usage_metadata: { input_tokens: 100, output_tokens: 5, total_tokens: 105, input_token_details: { cache_read: 80 } } }))
 * // { input_tokens: 20, output_tokens: 5, cache_read_input_tokens: 80, cache_creation_input_tokens: 0 }
 */
export function usageOf(message: AIMessage | BaseMessage | undefined) {
  const usage = (message as AIMessage | undefined)?.usage_metadata;
  if (usage === undefined || usage === null) return null;
  const details = usage.input_token_details as Record<string, number | undefined> | undefined;
  const read = details?.cache_read ?? 0;
  const write = details?.cache_creation ?? 0;
  const oneHour = details?.ephemeral_1h_input_tokens;
  return {
    input_tokens: typeof usage.input_tokens === "number" ? usage.input_tokens - read - write : usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
    ...(oneHour === undefined ? {} : { cache_creation: { ephemeral_1h_input_tokens: oneHour } }),
  };
}
