/**
 * offload-gate for the Vercel AI SDK (`ai` 7): a language-model middleware
 * for `wrapLanguageModel` and a recall tool. The middleware rewrites every
 * prompt on its way to the model (the SDK keeps the originals in its own
 * messages), so each decision is applied on every call, byte for byte.
 *
 * @example
 * import { generateText, isStepCount, wrapLanguageModel } from "ai";
 * import { createGateClient, OffloadSession } from "offload-gate-client";
 * import { offloadGateMiddleware, recallTool } from "offload-gate-client/ai-sdk";
 *
 * const session = new OffloadSession({ gate: createGateClient(), model: "claude-opus-4-6" });
 * const model = wrapLanguageModel({ model: anthropic("claude-opus-4-6"), middleware: offloadGateMiddleware(session) });
 * await generateText({ model, tools: { ...tools, [session.recallToolName]: recallTool(session) }, stopWhen: isStepCount(20), prompt });
 * await session.end();
 */
import { jsonSchema, tool, type LanguageModelMiddleware } from "ai";
import { fromOpenAI, takeDiagnostics } from "./cache-diagnostics.js";
import type { ObservedUsage, OffloadSession } from "./session.js";
import { CHARS_PER_TOKEN } from "./constants.js";

type Middle = Required<Pick<LanguageModelMiddleware, "transformParams" | "wrapGenerate" | "wrapStream">>;
type Params = Parameters<Middle["transformParams"]>[0]["params"];
type Message = Params["prompt"][number];
type Usage = Awaited<ReturnType<Parameters<Middle["wrapGenerate"]>[0]["doGenerate"]>>["usage"];
type ResultPart = Extract<Extract<Message, { role: "tool" }>["content"][number], { type: "tool-result" }>;

export interface AiSdkOffloadOptions {
  /**
   * Ask `POST /v1/plan` which results already sent in full (so already cached) to stub, all in one
   * rewrite: at most once every `planEvery` calls of the session, or sooner once the stubbable tokens
   * reach the batch the last paying plan stubbed. Default true: each output is first decided on entry
   * (cache-aware, the break-even size its pre-filter), and the plan catches what pays later.
   */
  plan?: boolean;
  /**
   * "gate": leave the prompt as it is and let Anthropic clear old tool results
   * server-side, with the clear_tool_uses edit `POST /v1/context-management`
   * prices cheapest (set as providerOptions.anthropic.contextManagement when
   * it saves money). For `@ai-sdk/anthropic` models.
   */
  contextManagement?: "gate";
  /** Called with each call's `appliedEdits` (what the API cleared) when contextManagement is "gate". */
  onAppliedEdits?: (edits: AppliedEdit[]) => void;
  /**
   * Ask the provider why a call missed the cache (default true): for `@ai-sdk/openai` Responses
   * models of GPT-5.6 and later, `providerOptions.openai.promptCacheOptions.comparisonResponseId`
   * names the previous response. `@ai-sdk/anthropic` has no option for it: give its client
   * `fetch: anthropicDiagnosticsFetch(session)` (offload-gate-client/cache-diagnostics).
   */
  cacheDiagnostics?: boolean;
}

/** One edit the API applied, as the AI SDK's Anthropic provider reports it. */
export interface AppliedEdit {
  type: string;
  clearedToolUses?: number;
  clearedInputTokens?: number;
}

/**
 * The middleware: decides each new large tool result the first time it is in
 * a prompt, applies every decision (and plan) on every call, and observes the
 * usage of every generate and stream call.
 *
 * @example
 * const model = wrapLanguageModel({ model: base, middleware: offloadGateMiddleware(session, { plan: false }) }); // entry decisions only
 */
export function offloadGateMiddleware(
  session: OffloadSession,
  options: AiSdkOffloadOptions = {},
): LanguageModelMiddleware {
  const plan = options.plan ?? true;
  const clearing = options.contextManagement === "gate" ? serverClearing(session) : null;
  const diagnose = options.cacheDiagnostics ?? true;
  // The previous response's id, for the next call's comparison (OpenAI's prompt cache diagnostics).
  let lastResponseId: string | undefined;
  const observe = (usage: Usage | undefined, metadata: unknown) => {
    const openai = (metadata as { openai?: { responseId?: unknown; promptCacheDiagnostics?: unknown } } | undefined)
      ?.openai;
    if (typeof openai?.responseId === "string") lastResponseId = openai.responseId;
    const counted = usageOf(usage, metadata);
    // The provider's own diagnostics, else those a wrapped client's fetch received for this call.
    const diagnostics = counted?.diagnostics ?? fromOpenAI(openai?.promptCacheDiagnostics) ?? takeDiagnostics(session);
    session.observe(counted && diagnostics ? { ...counted, diagnostics } : counted);
  };
  const applied = (metadata: unknown) => {
    const edits = appliedEdits(metadata);
    if (!clearing || edits.length === 0) return;
    // The outcome of the clearing decision the edit came from, when the gate recorded one.
    session.clearingApplied(edits);
    options.onAppliedEdits?.(edits);
  };
  return {
    specificationVersion: "v4",
    async transformParams({ params, model }) {
      try {
        const asked = diagnose ? askDiagnostics(params, model, lastResponseId) : params;
        if (clearing) return await clearing(asked);
        return { ...asked, prompt: await rewrite(session, params.prompt, plan) };
      } catch {
        // Never into the agent's loop: the prompt as it was.
        return params;
      }
    },
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      observe(result.usage, result.providerMetadata);
      applied(result.providerMetadata);
      return result;
    },
    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream();
      const observed = new TransformStream<
        typeof stream extends ReadableStream<infer P> ? P : never,
        typeof stream extends ReadableStream<infer P> ? P : never
      >({
        transform(part, controller) {
          if (part.type === "finish") {
            observe(part.usage, part.providerMetadata);
            applied(part.providerMetadata);
          }
          controller.enqueue(part);
        },
      });
      return { ...rest, stream: stream.pipeThrough(observed) };
    },
  };
}

/**
 * The recall tool: `{ id }` in, the original output out. Add it under
 * `session.recallToolName`, the name the stubs tell the model to call.
 *
 * @example
 * const tools = { web_fetch, [session.recallToolName]: recallTool(session) };
 */
export function recallTool(session: OffloadSession) {
  return tool({
    description:
      "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names.",
    inputSchema: jsonSchema<{ id: string }>({
      type: "object",
      properties: { id: { type: "string", description: "the tool call id named in the placeholder" } },
      required: ["id"],
      additionalProperties: false,
    }),
    execute: async ({ id }: { id: string }) => session.recall(id),
  });
}

/**
 * The session's usage shape from the SDK's: `input_tokens` without cache reads
 * and writes. A count the provider did not report stays undefined (null: no
 * usage at all), so the session names it instead of billing a zero; the
 * Anthropic provider's raw usage (`providerMetadata.anthropic.usage`) adds
 * its split of the writes by TTL, so 1-hour writes bill at their rate.
 *
 * @example
 * usageOf({ inputTokens: { total: 1_000, noCache: 100, cacheRead: 900, cacheWrite: 0 }, outputTokens: { total: 40 } })
 * // { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: 900, cache_creation_input_tokens: 0 }
 */
export function usageOf(usage: Usage | undefined, providerMetadata?: unknown) {
  if (usage === undefined || usage === null) return null;
  const input = usage.inputTokens;
  const read = input?.cacheRead ?? 0;
  const write = input?.cacheWrite ?? 0;
  const total = input?.total;
  const anthropic = (
    providerMetadata as { anthropic?: { usage?: { cache_creation?: unknown }; diagnostics?: unknown } } | undefined
  )?.anthropic;
  const raw = anthropic?.usage?.cache_creation;
  // Anthropic's cache diagnostics, where the provider passes the response's `diagnostics` through.
  const diagnostics = anthropic?.diagnostics;
  return {
    input_tokens: input?.noCache ?? (total === undefined ? undefined : total - read - write),
    output_tokens: usage.outputTokens?.total,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
    ...(raw !== null && typeof raw === "object"
      ? { cache_creation: raw as { ephemeral_1h_input_tokens?: number } }
      : {}),
    ...(diagnostics !== null && typeof diagnostics === "object"
      ? { diagnostics: diagnostics as NonNullable<ObservedUsage["diagnostics"]> }
      : {}),
  };
}

// OpenAI's Responses models of GPT-5.6 and later take a comparison response; older ones may refuse it.
const OPENAI_DIAGNOSED = /^gpt-(?:5\.(?:[6-9]|\d{2,})|(?:[6-9]|\d{2,})(?:\.\d+)?)(?:$|[-.])/;

/**
 * The params with the ask for cache diagnostics the provider takes: OpenAI's Responses models of
 * GPT-5.6 and later name the previous response (`promptCacheOptions.comparisonResponseId`).
 *
 * @example
 * askDiagnostics(params, { provider: "openai.responses", modelId: "gpt-5.6" }, "resp_1").providerOptions.openai
 * // { promptCacheOptions: { comparisonResponseId: "resp_1" } }
 */
export function askDiagnostics(
  params: Params,
  model: { provider: string; modelId: string },
  previousResponseId: string | undefined,
): Params {
  if (previousResponseId === undefined || model.provider !== "openai.responses") return params;
  if (!OPENAI_DIAGNOSED.test(model.modelId)) return params;
  const openai = (params.providerOptions?.openai ?? {}) as Record<string, unknown>;
  const promptCacheOptions = {
    ...((openai.promptCacheOptions ?? {}) as Record<string, unknown>),
    comparisonResponseId: previousResponseId,
  };
  return {
    ...params,
    providerOptions: {
      ...params.providerOptions,
      openai: { ...openai, promptCacheOptions },
    } as Params["providerOptions"],
  };
}

// Server-side clearing: the prompt goes as it is, with the edit the gate priced for its history
// (asked again only when a new tool result arrived); no edit when the gate says none or fails.
function serverClearing(session: OffloadSession) {
  let asked = "";
  let edits: unknown[] | null = null;
  return async (params: Params): Promise<Params> => {
    const parts = params.prompt.flatMap((message) => (message.role === "tool" ? message.content.filter(isResult) : []));
    const key = parts.map((part) => part.toolCallId).join("\u0000");
    if (parts.length > 0 && key !== asked) {
      asked = key;
      const segments = params.prompt.flatMap((message) =>
        message.role !== "tool"
          ? [{ tokens: tokensOf(JSON.stringify(message.content)) }]
          : message.content.map((part) =>
              isResult(part)
                ? {
                    id: part.toolCallId,
                    tool_name: part.toolName.slice(0, 64),
                    tokens: tokensOf(textOf(part) ?? JSON.stringify(part.output)),
                  }
                : { tokens: tokensOf(JSON.stringify(part)) },
            ),
      );
      const answer = await session.contextManagement(
        segments.map((s) => ({ ...s, tokens: Math.max(0, s.tokens) })) as never,
      );
      edits = answer?.context_management?.edits.map(toAiSdkEdit) ?? null;
    }
    if (edits === null) return params;
    const anthropic = { ...(params.providerOptions?.anthropic ?? {}), contextManagement: { edits } };
    return { ...params, providerOptions: { ...params.providerOptions, anthropic } as Params["providerOptions"] };
  };
}

// The Messages API's edit in the AI SDK's Anthropic provider options: camelCase.
function toAiSdkEdit(edit: {
  type: string;
  trigger: unknown;
  keep: unknown;
  clear_at_least: unknown;
  exclude_tools: string[];
}) {
  return {
    type: edit.type,
    trigger: edit.trigger,
    keep: edit.keep,
    clearAtLeast: edit.clear_at_least,
    ...(edit.exclude_tools.length > 0 ? { excludeTools: edit.exclude_tools } : {}),
  };
}

function appliedEdits(metadata: unknown): AppliedEdit[] {
  const cm = (metadata as { anthropic?: { contextManagement?: { appliedEdits?: unknown } } } | undefined)?.anthropic
    ?.contextManagement;
  return Array.isArray(cm?.appliedEdits) ? (cm.appliedEdits as AppliedEdit[]) : [];
}

async function rewrite(session: OffloadSession, prompt: Params["prompt"], plan: boolean): Promise<Params["prompt"]> {
  const parts = prompt.flatMap((message) => (message.role === "tool" ? message.content.filter(isResult) : []));
  // Already sent in full before this call (a plan's candidates), then this call's new ones decided.
  const keptBefore = new Set(
    parts.filter((part) => session.status(part.toolCallId) === "kept").map((part) => part.toolCallId),
  );
  await Promise.all(
    parts.map((part) => {
      const text = textOf(part);
      return text === null ? undefined : session.offload(part.toolCallId, part.toolName, text);
    }),
  );
  if (plan && keptBefore.size > 0) {
    const segments = prompt.map((message) => segmentsOf(session, message, keptBefore)).flat();
    const stubbable = segments.reduce((sum, s) => sum + ("id" in s ? s.tokens : 0), 0);
    // The plan's stubs all go in below, on this call: one rewrite of the cached history.
    if (session.planDue(stubbable)) await session.plan(segments);
  }
  return prompt.map((message) => {
    if (
      message.role !== "tool" ||
      !message.content.some((part) => isResult(part) && session.stubFor(part.toolCallId) !== undefined)
    )
      return message;
    const content = message.content.map((part) => {
      const stub = isResult(part) ? session.stubFor(part.toolCallId) : undefined;
      return stub === undefined ? part : { ...part, output: { type: "text" as const, value: stub } };
    });
    return { ...message, content } as Message;
  });
}

// The history for a plan: every result that may be stubbed as its own segment, everything else fixed.
function segmentsOf(session: OffloadSession, message: Message, candidates: Set<string>) {
  // Real tokens: measured from the usage where the session saw the output priced, else its learned factor.
  if (message.role !== "tool") return [{ tokens: session.tokensFor(undefined, JSON.stringify(message.content)) }];
  return message.content.map((part) => {
    const text = isResult(part) ? (session.stubFor(part.toolCallId) ?? textOf(part)) : null;
    if (isResult(part) && candidates.has(part.toolCallId) && text !== null)
      return { id: part.toolCallId, tokens: session.tokensFor(part.toolCallId, text) };
    return { tokens: session.tokensFor(undefined, text ?? JSON.stringify(part)) };
  });
}

function isResult<P extends { type: string }>(part: P): part is Extract<P, { type: "tool-result" }> {
  return part.type === "tool-result";
}

// A result the middleware can stand a text stub in for: text, JSON, or text-only content.
function textOf(part: ResultPart): string | null {
  const { type, value } = part.output as { type: string; value?: unknown };
  if (type === "text" && typeof value === "string") return value;
  if (type === "json") return JSON.stringify(value);
  if (type === "content" && Array.isArray(value) && value.every((item) => item?.type === "text"))
    return value.map((item) => item.text).join("\n");
  return null;
}

function tokensOf(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
