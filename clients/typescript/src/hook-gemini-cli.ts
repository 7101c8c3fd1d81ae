/**
 * `offload-gate-hook gemini-cli`: Gemini CLI's `AfterTool` command hook
 * (settings.json `hooks.AfterTool`). Gemini CLI (checked in
 * `@google/gemini-cli-core` 0.61.0, `executeToolWithHooks`) lets an AfterTool
 * hook replace the result the model sees only by denying it: with
 * `{"decision": "deny", "reason": R}` the tool's result becomes the error
 * `Tool result blocked: R`. It offers no field that replaces the output
 * itself (no `tool_output`); `additionalContext` only appends. So the stub
 * goes in `reason`. The hook sees the whole result (`tool_response.llmContent`)
 * before Gemini CLI truncates and saves a long one.
 *
 * Its input names no model and no call id: the model is `OFFLOAD_GATE_MODEL`,
 * else the last model the session's transcript names; the id the stub names
 * is made here. On any fault the result goes through unchanged.
 *
 * At `SessionEnd` (settings.json `hooks.SessionEnd`) it reads the session
 * Gemini CLI recorded (`transcript_path`) with replay's parser and reports
 * each decision's outcome and the session's bill, as the Claude Code hook
 * does; having no call id, a decision finds its output by its stub's id or
 * by tool and order (`alignByToolOrder`).
 */
import { randomUUID } from "node:crypto";
import { type HookEnv, hookGate, keptStub } from "./hook-env.js";
import { HookStore, hookStoreOptions } from "./hook-store.js";
import { MAX_TRANSCRIPT_BYTES } from "./hook-claude-code.js";
import { readRegularFile } from "./private-fs.js";
import { OffloadSession } from "./session.js";
import { reportTranscript } from "./transcript-report.js";

/** The recall tool as Gemini CLI's model sees it: MCP tools are named `mcp_<server>_<tool>`. */
export const GEMINI_CLI_RECALL_TOOL = "mcp_offload_recall_tool_output";

interface AfterToolInput {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  tool_name?: string;
  tool_response?: { llmContent?: unknown; error?: unknown };
}

/** The result's text: a string, or parts that are all text. */
function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  const parts = Array.isArray(content) ? content : [content];
  if (!parts.every((p) => typeof p?.text === "string" && Object.keys(p).every((k) => k === "text"))) return null;
  return parts.map((p) => p.text as string).join("");
}

/** How much of a transcript's end is read for its last model: a long session costs each hook run nothing more. */
const TRANSCRIPT_TAIL_BYTES = 4 * 1024 * 1024;

/** The last model a Gemini CLI transcript names (a JSON session file, or JSON lines), and its tokens. */
async function lastModel(path: string): Promise<{ model: string; context: number } | null> {
  const tail = await readRegularFile(path, { maxBytes: Number.POSITIVE_INFINITY, tailBytes: TRANSCRIPT_TAIL_BYTES });
  const text = tail.toString("utf8");
  const n = (v: unknown) => (typeof v === "number" && v >= 0 ? v : 0);
  let records: unknown[];
  try {
    const whole = JSON.parse(text) as { messages?: unknown[] };
    records = Array.isArray(whole?.messages) ? whole.messages : [];
  } catch {
    records = text.split("\n").flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
  }
  for (const r of records.reverse() as { model?: unknown; tokens?: { input?: unknown; output?: unknown } }[]) {
    if (typeof r?.model !== "string") continue;
    return { model: r.model, context: n(r.tokens?.input) + n(r.tokens?.output) };
  }
  // The end of a session file too long to read whole: its last model and token counts, by their keys.
  const model = [...text.matchAll(/"model"\s*:\s*"([^"\\]{1,200})"/g)].at(-1)?.[1];
  if (model === undefined) return null;
  const tokens = [...text.matchAll(/"tokens"\s*:\s*(\{[^{}]*\})/g)].at(-1)?.[1];
  let counts: { input?: unknown; output?: unknown } = {};
  try {
    counts = tokens === undefined ? {} : JSON.parse(tokens);
  } catch {
    counts = {};
  }
  return { model, context: n(counts.input) + n(counts.output) };
}

/**
 * Answers one AfterTool input: the JSON to print (empty: leave the result as it is).
 *
 * @example
 * await geminiCliHook({ hook_event_name: "AfterTool", session_id: "s", tool_name: "run_shell_command", tool_response: { llmContent: big } })
 * // '{"decision":"deny","reason":"[offloaded: …]"}'
 */
export async function geminiCliHook(input: AfterToolInput, options: HookEnv = {}): Promise<string> {
  const env = options.env ?? process.env;
  const onError = options.onError ?? (() => {});
  try {
    const storeOptions = hookStoreOptions(env);
    if (storeOptions === null || typeof input.session_id !== "string") return "";
    if (input.hook_event_name === "SessionEnd") {
      if (typeof input.transcript_path !== "string") return "";
      const transcript = input.transcript_path;
      const store = new HookStore(storeOptions, input.session_id);
      const gate = options.gate ?? hookGate(env, onError);
      await store.open(transcript);
      const text = (await readRegularFile(transcript, { maxBytes: MAX_TRANSCRIPT_BYTES, ownedByUser: true })).toString(
        "utf8",
      );
      const report = await reportTranscript(
        gate,
        {
          text,
          path: transcript,
          format: "gemini-cli",
          sessionId: input.session_id,
          decisions: await store.decisions(),
          recallToolName: GEMINI_CLI_RECALL_TOOL,
          fallbackModel: env.OFFLOAD_GATE_MODEL || undefined,
          align: "tool_order",
        },
        onError,
      );
      await store
        .recordReport({ outcomes: report.outcomes?.ok ?? null, session: report.session?.ok ?? null })
        .catch(onError);
      return "";
    }
    if (input.hook_event_name !== "AfterTool") return "";
    if (typeof input.tool_name !== "string" || input.tool_name === GEMINI_CLI_RECALL_TOOL) return "";
    if (input.tool_response?.error) return "";
    const text = textOf(input.tool_response?.llmContent);
    if (text === null) return "";
    const last =
      typeof input.transcript_path === "string" ? await lastModel(input.transcript_path).catch(() => null) : null;
    const model = env.OFFLOAD_GATE_MODEL || last?.model;
    if (!model) return "";
    const store = new HookStore(storeOptions, input.session_id);
    const gate = options.gate ?? hookGate(env, onError);
    await store.open(typeof input.transcript_path === "string" ? input.transcript_path : undefined);
    const session = new OffloadSession({
      gate,
      model,
      sessionId: input.session_id,
      recallToolName: GEMINI_CLI_RECALL_TOOL,
      store: store.capped,
      stub: keptStub(store),
      onError,
    });
    // The usage shape the session reads: the transcript's last call as input, so the gate sees the history's size.
    if (last) session.observe({ input_tokens: last.context, output_tokens: 0 });
    const id = `gcli-${randomUUID().slice(0, 13)}`;
    const answer = await session.offload(id, input.tool_name, text);
    const decisionId = session.decisionIdFor(id);
    // The answer is made before the decision is recorded: an answer that cannot be printed is no stub.
    const printed = session.stubFor(id) === undefined ? "" : JSON.stringify({ decision: "deny", reason: answer });
    if (decisionId !== undefined)
      await store.record({ id, tool: input.tool_name, decision_id: decisionId, fire: printed !== "" });
    return printed;
  } catch (error) {
    onError(error);
    return "";
  }
}
