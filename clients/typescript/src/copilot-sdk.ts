/**
 * offload-gate for the GitHub Copilot SDK (`@github/copilot-sdk` 1.0, the
 * Copilot CLI runtime it bundles; public preview): an `onPostToolUse` hook
 * that answers `modifiedResult` with the stub as the tool's own successful
 * result, a recall tool, and `observe` for the session's events: each model
 * call's `assistant.usage` once.
 *
 * The CLI saves a tool output past its large-output size to a file and hands
 * the model (and this hook) a short note naming it: there is nothing to save
 * then, and the note goes through. Raise the size with the session's
 * `largeOutput.maxSizeBytes` so the gate weighs big outputs; give the same
 * size to `recallTool`, whose pages stay under it. The hook's input names no
 * tool call id: the id a stub names is made here.
 *
 * @example
 * import { CopilotClient, approveAll } from "@github/copilot-sdk";
 * import { createGateClient, OffloadSession } from "offload-gate-client";
 * import { observe, offloadHooks, recallTool } from "offload-gate-client/copilot-sdk";
 *
 * const session = new OffloadSession({ gate: createGateClient(), model: "claude-opus-4-6" });
 * const copilot = await new CopilotClient().createSession({
 *   model: "claude-opus-4-6", onPermissionRequest: approveAll,
 *   hooks: offloadHooks(session), tools: [recallTool(session, { maxSizeBytes: 200_000 })],
 *   largeOutput: { maxSizeBytes: 200_000 },
 * });
 * copilot.on((event) => observe(session, event));
 * await copilot.sendAndWait({ prompt });
 * await session.end();
 */
import type { SessionEvent, SessionHooks, Tool } from "@github/copilot-sdk";

type PostToolUseHandler = NonNullable<SessionHooks["onPostToolUse"]>;
import { fitPage } from "./page-fit.js";
import { recallPage } from "./recall-page.js";
import type { OffloadSession } from "./session.js";
import { toolNameForGate } from "./stub.js";

/**
 * The large-output size recall pages stay under unless told the session's own: the runtime bundled
 * with SDK 1.0.14 passed a 20.8 KB tool result whole and saved one of 24.6 KB to a file, although
 * the SDK documents `largeOutput.maxSizeBytes` as 51,200 by default.
 */
export const COPILOT_LARGE_OUTPUT_BYTES = 20_480;

/** Room a page leaves under the size for its note and the CLI's own wrapping. */
const PAGE_MARGIN_BYTES = 1_024;

/**
 * The session's `hooks`: `onPostToolUse` asks the gate about each large
 * successful text result and answers `modifiedResult` with the stub in its
 * place (still a success: the model sees a normal tool result). Never throws
 * into the loop: on any fault the result goes through as it was.
 *
 * @example
 * client.createSession({ model, onPermissionRequest: approveAll, hooks: offloadHooks(session), tools: [recallTool(session)] });
 */
export function offloadHooks(session: OffloadSession, hooks: SessionHooks = {}): SessionHooks {
  const onPostToolUse: PostToolUseHandler = async (input, invocation) => {
    const theirs = await hooks.onPostToolUse?.(input, invocation);
    try {
      const result = theirs?.modifiedResult ?? input.toolResult;
      const text = result?.textResultForLlm;
      if (input.toolName === session.recallToolName || result?.resultType !== "success" || typeof text !== "string")
        return theirs;
      if ((result.binaryResultsForLlm?.length ?? 0) > 0) return theirs;
      const id = `cp-${globalThis.crypto.randomUUID().slice(0, 13)}`;
      const answer = await session.offload(id, toolNameForGate(input.toolName), text);
      if (session.stubFor(id) === undefined) return theirs;
      return { ...theirs, modifiedResult: { ...result, textResultForLlm: answer, sessionLog: answer } };
    } catch {
      return theirs;
    }
  };
  return { ...hooks, onPostToolUse };
}

/**
 * The recall tool (`{ id, offset? }` in, a page of the original out), named
 * as the session's `recallToolName`, run without a permission prompt. Pages
 * stay under the session's large-output size (`maxSizeBytes`; unless given,
 * COPILOT_LARGE_OUTPUT_BYTES, what the CLI was seen to pass whole), so the CLI never saves one to a file.
 *
 * @example
 * tools: [recallTool(session, { maxSizeBytes: 200_000 })]
 */
export function recallTool(session: OffloadSession, options: { maxSizeBytes?: number } = {}): Tool {
  const bytes = Math.max(2_048, (options.maxSizeBytes ?? COPILOT_LARGE_OUTPUT_BYTES) - PAGE_MARGIN_BYTES);
  return {
    name: session.recallToolName,
    description:
      "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names. Long outputs come in pages: pass the offset the last page names.",
    parameters: {
      type: "object",
      properties: {
        id: { type: "string", description: "the tool call id named in the placeholder" },
        offset: { type: "integer", minimum: 0, description: "where to go on from, in characters" },
      },
      required: ["id"],
    },
    skipPermission: true,
    defer: "never",
    handler: async (args: unknown) => {
      const { id, offset } = (args ?? {}) as { id?: unknown; offset?: unknown };
      const text = await session.recall(String(id));
      const from = typeof offset === "number" ? offset : 0;
      return recallPage(text, from, fitPage(text, from, { chars: bytes, bytes, lines: Number.POSITIVE_INFINITY }));
    },
  };
}

/**
 * Feeds the session one event of the Copilot session: each `assistant.usage`
 * (one model call) once, its `inputTokens` (which hold the cache's reads and
 * writes) read as Anthropic's split. A sub-agent's, compaction's or other
 * background call goes on the bill without counting a turn of this history.
 *
 * @example
 * copilot.on((event) => observe(session, event));
 */
export function observe(session: OffloadSession, event: SessionEvent): void {
  if (event.type !== "assistant.usage") return;
  const seen = observed.get(session) ?? new Set<string>();
  observed.set(session, seen);
  if (seen.has(event.id)) return;
  seen.add(event.id);
  const data = event.data;
  const read = data.cacheReadTokens ?? 0;
  const write = data.cacheWriteTokens ?? 0;
  const input = typeof data.inputTokens === "number" ? data.inputTokens - read - write : undefined;
  const usage = {
    input_tokens: input === undefined ? undefined : Math.max(0, input),
    output_tokens: data.outputTokens,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
  };
  const own = data.initiator !== "sub-agent" && OWN_CALLS.has(data.interactionType ?? "conversation-agent");
  session.observe(usage, { turn: own });
}

// The calls on this session's own history: the agent's turns and the user's.
const OWN_CALLS = new Set(["conversation-agent", "conversation-user"]);
const observed = new WeakMap<OffloadSession, Set<string>>();
