/**
 * `offload-gate-hook claude-code`: Claude Code's command hook. Claude Code
 * runs it from `.claude/settings.json` with the hook's JSON on stdin.
 *
 * - `PostToolUse`: decides the whole output (the file `persistedOutputPath`
 *   names when Claude Code saved a big one), stores the original in the
 *   session's directory under `OFFLOAD_GATE_RECALL_DIR`, and answers
 *   `hookSpecificOutput.updatedToolOutput` with the stub in the tool's own
 *   output shape (for Bash `{ stdout, stderr, interrupted }`): only that
 *   replaces what the model sees; a string is dropped.
 * - `SessionEnd`: reports each decision's outcome and the session's bill,
 *   read from `transcript_path` with replay's parser.
 *
 * The hook input names no model: it is the transcript's last assistant
 * record's, else `OFFLOAD_GATE_MODEL`, at both events. On any fault the
 * output goes through unchanged (an empty answer) and the command exits 0.
 */
import { type HookEnv, hookGate, keptStub, reportSessionEnd } from "./hook-env.js";
import { HookStore, hookStoreOptions } from "./hook-store.js";
import { readRegularFile } from "./private-fs.js";
import type { ObservedUsage } from "./session-ledger.js";
import { OffloadSession } from "./session.js";
import { replaceToolOutput } from "./tool-shapes.js";

export { type HookEnv, hookGate } from "./hook-env.js";

/** The recall tool as Claude Code's model sees it: the `offload` server of `.mcp.json`, its `recall_tool_output`. */
export const CLAUDE_CODE_RECALL_TOOL = "mcp__offload__recall_tool_output";

/** What the hook reads of Claude Code's hook input. */
interface HookInput {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  tool_name?: string;
  tool_use_id?: string;
  tool_response?: unknown;
}

/** What the hook reads of a transcript's last model call, and of the session so far. */
export interface LastCall {
  model: string;
  usage: ObservedUsage | null;
  /** Model calls the transcript's read tail records (distinct message ids): the next output's call index. */
  calls: number;
  /** The last call was a subagent's (Claude Code marks a subagent's records `isSidechain`). */
  sidechain: boolean;
}

/**
 * The last model call a transcript records: its model and usage (the history's size before this
 * output), how many model calls came before, and whether it is a subagent's. Only the last 4 MB are
 * read, so a long session costs each hook run nothing more; past that the count is a floor.
 *
 * @example
 * await lastCall("/home/me/.claude/projects/p/s.jsonl") // { model: "claude-opus-4-6", usage: {…}, calls: 12, sidechain: false } or null
 */
export async function lastCall(path: string): Promise<LastCall | null> {
  const tail = await readRegularFile(path, { maxBytes: Number.POSITIVE_INFINITY, tailBytes: 4 * 1024 * 1024 });
  const lines = tail.toString("utf8").split("\n");
  let last: Omit<LastCall, "calls"> | null = null;
  // Claude Code writes one assistant record per content block of a call, each with the call's message id.
  const ids = new Set<string>();
  let unnamed = 0;
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    let record: {
      type?: unknown;
      isSidechain?: unknown;
      message?: { id?: unknown; model?: unknown; usage?: ObservedUsage };
    };
    try {
      record = JSON.parse(lines[i]!);
    } catch {
      continue;
    }
    const model = record?.message?.model;
    if (record?.type !== "assistant" || typeof model !== "string" || model === "<synthetic>") continue;
    const id = record.message?.id;
    if (typeof id === "string") ids.add(id);
    else unnamed += 1;
    last ??= { model, usage: record.message?.usage ?? null, sidechain: record.isSidechain === true };
  }
  return last === null ? null : { ...last, calls: ids.size + unnamed };
}

/**
 * The session facts a gate request carries from the transcript: the agent, the call index, and
 * whether the session is a subagent's.
 *
 * @example
 * sessionFacts({ model: "claude-opus-4-6", usage: null, calls: 12, sidechain: true })
 * // { agent: "claude-code", call_index: 12, subagent: true }
 */
export function sessionFacts(last: LastCall): { agent: string; call_index: number; subagent: boolean } {
  return { agent: "claude-code", call_index: last.calls, subagent: last.sidechain };
}

/**
 * Answers one hook input: the JSON to print (empty: leave the output as it is).
 *
 * @example
 * const answer = await claudeCodeHook(JSON.parse(stdin)); // '{"hookSpecificOutput":{…}}' or ""
 */
export async function claudeCodeHook(input: HookInput, options: HookEnv = {}): Promise<string> {
  const env = options.env ?? process.env;
  const onError = options.onError ?? (() => {});
  try {
    const storeOptions = hookStoreOptions(env);
    if (storeOptions === null || typeof input.session_id !== "string") return "";
    const transcript = typeof input.transcript_path === "string" ? input.transcript_path : undefined;
    const store = new HookStore(storeOptions, input.session_id);
    if (input.hook_event_name === "SessionEnd") {
      if (transcript === undefined) return "";
      await reportSessionEnd(
        store,
        options.gate ?? hookGate(env, onError),
        transcript,
        { format: "claude-code", sessionId: input.session_id, recallToolName: CLAUDE_CODE_RECALL_TOOL, env },
        onError,
      );
      return "";
    }
    if (input.hook_event_name !== "PostToolUse" || typeof input.tool_use_id !== "string") return "";
    if (typeof input.tool_name !== "string" || input.tool_name === CLAUDE_CODE_RECALL_TOOL) return "";
    const gate = options.gate ?? hookGate(env, onError);
    const last = transcript !== undefined ? await lastCall(transcript).catch(() => null) : null;
    const model = last?.model ?? env.OFFLOAD_GATE_MODEL;
    if (!model) return "";
    await store.open(transcript);
    const session = new OffloadSession({
      gate,
      model,
      sessionId: input.session_id,
      recallToolName: CLAUDE_CODE_RECALL_TOOL,
      store: store.capped,
      stub: keptStub(store),
      // What the hook knows of the session, for the gate's session-aware horizon (docs/design/economics.md §13).
      ...(last === null ? {} : { request: sessionFacts(last) }),
      onError,
    });
    // The history's size before this output: the call that asked for the tool.
    if (last?.usage) session.observe(last.usage);
    const replaced = await replaceToolOutput(session, input.tool_use_id, input.tool_name, input.tool_response, {
      onError,
    });
    // The answer is made before the decision is recorded: an answer that cannot be printed is no stub.
    let answer = "";
    try {
      if (replaced !== null)
        answer = JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: replaced } });
    } catch (error) {
      onError(error);
    }
    const decisionId = session.decisionIdFor(input.tool_use_id);
    if (decisionId !== undefined)
      await store.record({
        id: input.tool_use_id,
        tool: input.tool_name,
        decision_id: decisionId,
        fire: answer !== "",
      });
    return answer;
  } catch (error) {
    onError(error);
    return "";
  }
}
