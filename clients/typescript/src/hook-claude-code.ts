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
 * record's, else `OFFLOAD_GATE_MODEL`. On any fault the output goes through
 * unchanged (an empty answer) and the command exits 0.
 */
import { open, readFile } from "node:fs/promises";
import { createGateClient, type GateClient } from "./index.js";
import { HookStore, hookStoreOptions } from "./hook-store.js";
import type { ObservedUsage } from "./session-ledger.js";
import { OffloadSession } from "./session.js";
import { replaceToolOutput } from "./tool-shapes.js";
import { reportTranscript } from "./transcript-report.js";

/** The recall tool as Claude Code's model sees it: the `offload` server of `.mcp.json`, its `recall_tool_output`. */
export const CLAUDE_CODE_RECALL_TOOL = "mcp__offload__recall_tool_output";

/**
 * The gate a hook asks, from the environment the agent's CLI gives its hooks (as the Python client
 * reads it): `OFFLOAD_GATE_URL`, `OFFLOAD_GATE_API_KEY`, `OFFLOAD_GATE_TIMEOUT_MS` (2 s by default).
 *
 * @example
 * const gate = hookGate({ OFFLOAD_GATE_URL: "http://127.0.0.1:8787" });
 */
export function hookGate(env: NodeJS.ProcessEnv): GateClient {
  return createGateClient({
    baseUrl: env.OFFLOAD_GATE_URL,
    apiKey: env.OFFLOAD_GATE_API_KEY,
    timeoutMs: Number(env.OFFLOAD_GATE_TIMEOUT_MS) || 2_000,
  });
}

/** What the hook reads of Claude Code's hook input. */
interface HookInput {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  tool_name?: string;
  tool_use_id?: string;
  tool_response?: unknown;
}

/** The last model call a transcript records: its model and usage (the history's size before this output). */
export async function lastCall(path: string): Promise<{ model: string; usage: ObservedUsage | null } | null> {
  // The tail is enough: the last assistant record is near the end. Read at most the last 4 MB.
  const file = await open(path, "r");
  try {
    const { size } = await file.stat();
    const length = Math.min(size, 4 * 1024 * 1024);
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, size - length);
    const lines = buffer.toString("utf8").split("\n");
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      let record: { type?: unknown; message?: { model?: unknown; usage?: ObservedUsage } };
      try {
        record = JSON.parse(lines[i]!);
      } catch {
        continue;
      }
      const model = record?.message?.model;
      if (record?.type === "assistant" && typeof model === "string" && model !== "<synthetic>")
        return { model, usage: record.message?.usage ?? null };
    }
    return null;
  } finally {
    await file.close();
  }
}

/** The environment the hook reads. */
export interface HookEnv {
  gate?: GateClient;
  env?: NodeJS.ProcessEnv;
  onError?: (error: unknown) => void;
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
    const store = new HookStore(storeOptions, input.session_id);
    const gate = options.gate ?? hookGate(env);
    if (input.hook_event_name === "SessionEnd") {
      if (typeof input.transcript_path !== "string") return "";
      const report = await reportTranscript(
        gate,
        {
          text: await readFile(input.transcript_path, "utf8"),
          path: input.transcript_path,
          format: "claude-code",
          sessionId: input.session_id,
          decisions: await store.decisions(),
          recallToolName: CLAUDE_CODE_RECALL_TOOL,
          model: env.OFFLOAD_GATE_MODEL || undefined,
        },
        onError,
      );
      await store
        .recordReport({ outcomes: report.outcomes?.ok ?? null, session: report.session?.ok ?? null })
        .catch(onError);
      return "";
    }
    if (input.hook_event_name !== "PostToolUse" || typeof input.tool_use_id !== "string") return "";
    if (typeof input.tool_name !== "string" || input.tool_name === CLAUDE_CODE_RECALL_TOOL) return "";
    const last =
      typeof input.transcript_path === "string" ? await lastCall(input.transcript_path).catch(() => null) : null;
    const model = last?.model ?? env.OFFLOAD_GATE_MODEL;
    if (!model) return "";
    const session = new OffloadSession({
      gate,
      model,
      sessionId: input.session_id,
      recallToolName: CLAUDE_CODE_RECALL_TOOL,
      store: store.capped,
      onError,
    });
    // The history's size before this output: the call that asked for the tool.
    if (last?.usage) session.observe(last.usage);
    const replaced = await replaceToolOutput(session, input.tool_use_id, input.tool_name, input.tool_response);
    const decisionId = session.decisionIdFor(input.tool_use_id);
    if (decisionId !== undefined)
      await store.record({
        id: input.tool_use_id,
        tool: input.tool_name,
        decision_id: decisionId,
        fire: replaced !== null,
      });
    if (replaced === null) return "";
    return JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", updatedToolOutput: replaced } });
  } catch (error) {
    onError(error);
    return "";
  }
}
