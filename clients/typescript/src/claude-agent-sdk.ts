/**
 * offload-gate for the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`
 * 0.3): a PostToolUse hook that stands a stub in for a large tool output
 * (keeping a built-in tool's output shape), an in-process MCP server with the
 * recall tool (paged: Claude Code cuts an MCP result at about 25,000 tokens),
 * and `observe` for the query's messages: each model call's usage, and the
 * result message's, which ends the session.
 *
 * @example
 * import { query } from "@anthropic-ai/claude-agent-sdk";
 * import { createGateClient, OffloadSession } from "offload-gate-client";
 * import { offloadHooks, recallServer, observe } from "offload-gate-client/claude-agent-sdk";
 *
 * const session = new OffloadSession({ gate: createGateClient(), model: "claude-opus-4-6" });
 * for await (const message of query({ prompt, options: { hooks: offloadHooks(session), mcpServers: { offload: recallServer(session) } } })) {
 *   await observe(session, message); // ends the session on the result message
 * }
 */
import {
  createSdkMcpServer,
  tool,
  type HookCallbackMatcher,
  type HookEvent,
  type SDKMessage,
} from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";
import { recallPage } from "./recall-page.js";
import { replaceToolOutput } from "./tool-shapes.js";
import type { ObservedUsage, OffloadSession } from "./session.js";

export { RECALL_PAGE_CHARS, recallPage } from "./recall-page.js";

/** The recall server's name in `mcpServers`, unless given: its tool is then `mcp__offload__<recallToolName>`. */
export const RECALL_SERVER_NAME = "offload";

export { SUPPORTED_BUILT_IN_TOOLS } from "./tool-shapes.js";

type Json = Record<string, unknown>;

/**
 * The `hooks` option: one PostToolUse hook that asks the gate about each
 * large tool output and, when it fires, answers
 * `hookSpecificOutput.updatedToolOutput` with the stub in the tool's shape.
 * An output Claude Code saved to a file (a Bash preview with
 * `persistedOutputPath`) is decided on the whole file, which recall returns;
 * an output's own text never names a file to read (src/tool-shapes.ts).
 * Never throws into the loop: on any fault the output goes through as it was.
 *
 * @example
 * query({ prompt, options: { hooks: offloadHooks(session), mcpServers: { offload: recallServer(session) } } });
 */
export function offloadHooks(
  session: OffloadSession,
  options: { serverName?: string } = {},
): Partial<Record<HookEvent, HookCallbackMatcher[]>> {
  const recallName = mcpRecallName(session, options.serverName);
  return {
    PostToolUse: [
      {
        hooks: [
          async (input, toolUseId) => {
            try {
              if (input.hook_event_name !== "PostToolUse" || input.tool_name === recallName) return { continue: true };
              const id = toolUseId ?? input.tool_use_id;
              const replaced = await replaceToolOutput(session, id, input.tool_name, input.tool_response);
              return replaced === null
                ? { continue: true }
                : { continue: true, hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: replaced } };
            } catch {
              return { continue: true };
            }
          },
        ],
      },
    ],
  };
}

/**
 * The recall tool's name as the model sees it, `mcp__<server>__<tool>`. Give
 * the session this as its `recallToolName`, so its stubs name the tool the
 * model can call; a bare name is prefixed.
 *
 * @example
 * mcpRecallName(new OffloadSession({ gate, model, recallToolName: "mcp__offload__recall_tool_output" })) // "mcp__offload__recall_tool_output"
 */
export function mcpRecallName(session: OffloadSession, serverName = RECALL_SERVER_NAME): string {
  const prefix = `mcp__${serverName}__`;
  return session.recallToolName.startsWith(prefix) ? session.recallToolName : prefix + session.recallToolName;
}

/**
 * The recall tool as an in-process SDK MCP server: `{ id, offset? }` in, a
 * page of the original out. Add it to `mcpServers` under `offload` (or the
 * `serverName` given here and to offloadHooks). With tool search on (the default), the
 * model finds it by searching for "recall"; the stub names it either way.
 *
 * @example
 * query({ prompt, options: { mcpServers: { offload: recallServer(session) }, hooks: offloadHooks(session) } });
 */
export function recallServer(session: OffloadSession, options: { pageChars?: number; serverName?: string } = {}) {
  const serverName = options.serverName ?? RECALL_SERVER_NAME;
  const recall = tool(
    mcpRecallName(session, serverName).slice(`mcp__${serverName}__`.length),
    "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names. Long outputs come in pages: pass the offset the last page names.",
    {
      id: z.string().describe("the tool call id named in the placeholder"),
      offset: z.number().int().nonnegative().optional().describe("where to go on from, in characters"),
    },
    async ({ id, offset }) => ({
      content: [{ type: "text" as const, text: recallPage(await session.recall(id), offset, options.pageChars) }],
    }),
    { searchHint: "recall an offloaded tool output by its id", alwaysLoad: true },
  );
  return createSdkMcpServer({ name: serverName, version: "0.1.0", tools: [recall] });
}

/**
 * Feeds the session one message of the query: each model call's usage once
 * (a streamed call arrives as several assistant messages with one id: a turn
 * each), and on the result message whatever its usage for the session's
 * model (its `modelUsage` row, else `usage`) adds beyond them, on the bill
 * only (the streamed messages carry the usage from before the output was
 * counted), then ends the session. Resolves once it has.
 *
 * @example
 * for await (const message of query({ prompt, options })) await observe(session, message);
 */
export async function observe(session: OffloadSession, message: SDKMessage): Promise<void> {
  const seen = observed.get(session) ?? { ids: new Set<string>(), usage: zero() };
  observed.set(session, seen);
  if (message.type === "assistant" && message.parent_tool_use_id === null) {
    const { id, usage } = message.message;
    if (seen.ids.has(id) || usage === undefined || usage === null) return;
    seen.ids.add(id);
    const u = usage as unknown as Json;
    for (const key of USAGE_KEYS) seen.usage[key] += num(u[key]);
    // As it came: the session reads its split of the writes by TTL, and names a count it cannot read;
    // with the response's cache diagnostics, when the request asked for them.
    const diagnostics = (message.message as { diagnostics?: ObservedUsage["diagnostics"] }).diagnostics;
    session.observe({ ...(usage as unknown as ObservedUsage), ...(diagnostics ? { diagnostics } : {}) });
    return;
  }
  if (message.type !== "result") return;
  const total = resultUsage(session.model, message as unknown as Json);
  const extra = Object.fromEntries(
    USAGE_KEYS.map((key) => [key, Math.max(0, total[key] - seen.usage[key])]),
  ) as ReturnType<typeof zero>;
  // A streamed call's message carries its usage before the output is counted: the rest goes on the bill, no new turn.
  if (USAGE_KEYS.some((key) => extra[key] > 0)) session.observe(extra, { turn: false });
  await session.end();
}

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const;
const observed = new WeakMap<OffloadSession, { ids: Set<string>; usage: ReturnType<typeof zero> }>();
const zero = () => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

// The result's bill for the session's model: its modelUsage row when it has one, else the summed usage.
function resultUsage(model: string, result: Json): ReturnType<typeof zero> {
  const row = (result.modelUsage as Record<string, Json> | undefined)?.[model];
  if (row !== undefined) {
    return {
      input_tokens: num(row.inputTokens),
      output_tokens: num(row.outputTokens),
      cache_read_input_tokens: num(row.cacheReadInputTokens),
      cache_creation_input_tokens: num(row.cacheCreationInputTokens),
    };
  }
  const u = (result.usage ?? {}) as Json;
  return {
    input_tokens: num(u.input_tokens),
    output_tokens: num(u.output_tokens),
    cache_read_input_tokens: num(u.cache_read_input_tokens),
    cache_creation_input_tokens: num(u.cache_creation_input_tokens),
  };
}
