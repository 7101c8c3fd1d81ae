/**
 * offload-gate for opencode (`opencode-ai` 1.18, plugins through
 * `@opencode-ai/plugin`): a server plugin. Its `tool.execute.after` hook asks
 * the gate about each large tool output as opencode hands it to the model and
 * writes the stub into `output.output`; its `recall_tool_output` tool gives
 * the original back in pages that opencode's own cut of a tool output (2,000
 * lines or 50 KB) leaves whole; its `event` hook counts each model call (a
 * `step-finish` part: that step's tokens) and its `dispose` hook (opencode
 * disposes its plugins on exit, `opencode run` included) ends every session:
 * outcomes and bills reported. One gate session per opencode session.
 *
 * What the plugin does not see: a subagent's tool calls (opencode runs no
 * plugin hook for them), and an output opencode already cut and saved to a
 * file (the model sees only a short note then, so there is nothing to save).
 *
 * @example
 * // .opencode/plugin/offload-gate.ts (one export: opencode runs every function a plugin file exports)
 * import { offloadPlugin } from "offload-gate-client/opencode";
 * export const OffloadGate = offloadPlugin({ model: "claude-opus-4-6" });
 */
import type { Hooks, Plugin } from "@opencode-ai/plugin";
import { tool } from "@opencode-ai/plugin";
import { createGateClient } from "./index.js";
import type { GateClient, GateRequest } from "./client-types.js";
import { fitPage } from "./page-fit.js";
import { recallPage } from "./recall-page.js";
import { OffloadSession, type SessionSummary } from "./session.js";
import { toolNameForGate } from "./stub.js";

/** The recall tool's name in opencode (a plugin tool is named as its key). */
export const OPENCODE_RECALL_TOOL = "recall_tool_output";

/**
 * opencode's cut of a tool's output (`Truncate`: 2,000 lines or 50 KB): a
 * recall page stays under both, with room for its note.
 */
export const OPENCODE_PAGE = { chars: 40_000, bytes: 48 * 1024, lines: 1_900 } as const;

export interface OffloadPluginOptions {
  /** The gate; default: `OFFLOAD_GATE_URL`, `OFFLOAD_GATE_API_KEY`, `OFFLOAD_GATE_TIMEOUT_MS` (2 s). */
  gate?: GateClient;
  /** The model the gate prices; default `OFFLOAD_GATE_MODEL`, else the model opencode runs the session with. */
  model?: string;
  /** Outputs shorter than this are kept without asking (the session's default, 2,000). */
  minChars?: number;
  /** Fields every gate request carries (e.g. `pricing_mode`). */
  request?: Partial<GateRequest>;
  /** Faults (never thrown into opencode). */
  onError?: (error: unknown) => void;
  /** Each session's summary once it ended (its outcomes and bill reported). */
  onSessionEnd?: (summary: SessionSummary) => void;
}

/** What the plugin reads of a `step-finish` part: one model call's tokens (`input` without the cache's). */
interface StepFinish {
  id: string;
  sessionID: string;
  type: "step-finish";
  tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
}

/**
 * The plugin: stubs, recall, and the books of each opencode session.
 *
 * @example
 * export const OffloadGate = offloadPlugin({ model: "claude-opus-4-6", request: { pricing_mode: "cache_aware" } });
 */
export function offloadPlugin(options: OffloadPluginOptions = {}): Plugin {
  return async () => {
    const env = process.env;
    const gate =
      options.gate ??
      createGateClient({
        baseUrl: env.OFFLOAD_GATE_URL,
        apiKey: env.OFFLOAD_GATE_API_KEY,
        timeoutMs: Number(env.OFFLOAD_GATE_TIMEOUT_MS) || 2_000,
      });
    const onError = options.onError ?? (() => {});
    const sessions = new Map<string, OffloadSession>();
    const models = new Map<string, string>();
    const counted = new Set<string>();
    const sessionFor = (id: string): OffloadSession | null => {
      const known = sessions.get(id);
      if (known) return known;
      const model = options.model ?? env.OFFLOAD_GATE_MODEL ?? models.get(id);
      if (!model) return null;
      const session = new OffloadSession({
        gate,
        model,
        sessionId: id,
        recallToolName: OPENCODE_RECALL_TOOL,
        onError,
        ...(options.minChars === undefined ? {} : { minChars: options.minChars }),
        ...(options.request === undefined ? {} : { request: options.request }),
      });
      sessions.set(id, session);
      return session;
    };
    const end = async (session: OffloadSession) => {
      const summary = await session.end();
      try {
        options.onSessionEnd?.(summary);
      } catch (error) {
        onError(error);
      }
    };
    const hooks: Hooks = {
      // The session's main model, as the user's message names it (a title call names the small model).
      "chat.params": async (input) => {
        const model = (input.message as { model?: { modelID?: unknown } }).model?.modelID;
        if (typeof model === "string" && !models.has(input.sessionID)) models.set(input.sessionID, model);
      },
      "tool.execute.after": async (input, output) => {
        try {
          if (input.tool === OPENCODE_RECALL_TOOL || typeof output.output !== "string") return;
          // A note naming the file opencode saved a cut output to: the model sees only the note.
          if (/\n\nFull output saved to: \S+/.test(output.output) && output.output.length < 4_000) return;
          const session = sessionFor(input.sessionID);
          if (session === null) return;
          output.output = await session.offload(input.callID, toolNameForGate(input.tool), output.output);
        } catch (error) {
          onError(error);
        }
      },
      tool: {
        [OPENCODE_RECALL_TOOL]: tool({
          description:
            "Read back in full a tool output that was offloaded from the context: pass the id its placeholder names. Long outputs come in pages: pass the offset the last page names.",
          args: {
            id: tool.schema.string().describe("the tool call id named in the placeholder"),
            offset: tool.schema.number().int().nonnegative().optional().describe("where to go on from, in characters"),
          },
          async execute({ id, offset }, context) {
            const session = sessions.get(context.sessionID);
            if (session === undefined) return `no offloaded output has id ${JSON.stringify(id)}`;
            const text = await session.recall(id);
            return recallPage(text, offset, pageChars(text, offset ?? 0));
          },
        }),
      },
      event: async ({ event }) => {
        try {
          if (event.type === "session.deleted") {
            const id = (event.properties as { info?: { id?: string } }).info?.id;
            const session = id === undefined ? undefined : sessions.get(id);
            if (session) await end(session);
            return;
          }
          if (event.type !== "message.part.updated") return;
          const part = (event.properties as { part?: StepFinish }).part;
          if (part?.type !== "step-finish" || counted.has(part.id)) return;
          counted.add(part.id);
          sessionFor(part.sessionID)?.observe(stepUsage(part));
        } catch (error) {
          onError(error);
        }
      },
      dispose: async () => {
        await Promise.all([...sessions.values()].filter((s) => !s.ended).map(end));
      },
    };
    return hooks;
  };
}

/**
 * A step's tokens in the session's (Anthropic's) usage shape: opencode's
 * `input` excludes cache reads and writes, and its `output` the reasoning,
 * which is billed as output.
 *
 * @example
 * stepUsage({ id: "p", sessionID: "s", type: "step-finish", tokens: { input: 100, output: 10, reasoning: 5, cache: { read: 50, write: 20 } } })
 * // { input_tokens: 100, output_tokens: 15, cache_read_input_tokens: 50, cache_creation_input_tokens: 20 }
 */
export function stepUsage(part: StepFinish) {
  const t = part.tokens ?? {};
  return {
    input_tokens: t.input,
    output_tokens: typeof t.output === "number" ? t.output + (t.reasoning ?? 0) : t.output,
    cache_read_input_tokens: t.cache?.read ?? 0,
    cache_creation_input_tokens: t.cache?.write ?? 0,
  };
}

/**
 * How many characters from `offset` one recall page holds: at most
 * OPENCODE_PAGE's characters, and no more lines or UTF-8 bytes than opencode
 * passes uncut.
 *
 * @example
 * pageChars("a\n".repeat(5_000), 0) // 3_800: 1,900 lines
 */
export function pageChars(text: string, offset: number): number {
  return fitPage(text, offset, OPENCODE_PAGE);
}
