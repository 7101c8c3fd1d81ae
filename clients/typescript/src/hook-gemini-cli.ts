/**
 * `offload-gate-hook gemini-cli`: Gemini CLI's `AfterTool` command hook
 * (settings.json `hooks.AfterTool`). It sees the whole result
 * (`tool_response.llmContent`) before Gemini CLI truncates and saves a long
 * one. When the gate fires it answers a tail call (`@google/gemini-cli-core`
 * 0.61.0, `hookSpecificOutput.tailToolCallRequest`: "the result of this tail
 * call will replace the original tool's response", run under the same call
 * id) to the recall tool for an entry that holds the stub: the model gets the
 * stub as the tool's normal result. (`decision: "deny"` would make it an
 * error, `Tool result blocked: …`, counted as a failed call.) The tail call
 * is validated like any call: outside `--yolo` the recall server must be
 * trusted (`trust: true`), or the user is asked to approve it.
 *
 * Gemini CLI cuts a tool result past 40,000 characters (its head and tail
 * shown), so the original is stored in pages of GEMINI_CLI_PAGE_CHARS, the
 * first under the id the stub names, each ending with a note naming the
 * next; the stub says how many pages there are.
 *
 * Its input names no model and no call id: the model is `OFFLOAD_GATE_MODEL`,
 * else the last model the session's transcript names; the id the stub names
 * is made here. On any fault the result goes through unchanged, and nothing
 * is written to stderr.
 *
 * At `SessionEnd` (settings.json `hooks.SessionEnd`) it reads the session
 * Gemini CLI recorded (`transcript_path`) with replay's parser and reports
 * each decision's outcome and the session's bill, as the Claude Code hook
 * does; having no call id, a decision finds its output by its stub's id or
 * by tool and order (`alignByToolOrder`).
 */
import { randomUUID } from "node:crypto";
import { type HookEnv, hookGate, keptStub, reportSessionEnd } from "./hook-env.js";
import { HookStore, hookStoreOptions } from "./hook-store.js";
import { readRegularFile } from "./private-fs.js";
import { OffloadSession } from "./session.js";
import { defaultStub, type StubInfo } from "./stub.js";

/** The recall tool as Gemini CLI's model sees it: MCP tools are named `mcp_<server>_<tool>`. */
export const GEMINI_CLI_RECALL_TOOL = "mcp_offload_recall_tool_output";

/**
 * Characters one recall page holds for Gemini CLI: under its 40,000-character cut of a tool result
 * with room for the page's note and the MCP result's wrapping.
 */
export const GEMINI_CLI_PAGE_CHARS = 30_000;

/**
 * The stub for Gemini CLI: the default one, and how many pages the recall gives back.
 *
 * @example
 * geminiStub({ id: "gcli-1", toolName: "run_shell_command", chars: 70_000, recallToolName: GEMINI_CLI_RECALL_TOOL })
 * // '[offloaded: … to read it] It comes back in 3 pages of at most 30,000 characters; each names the next.'
 */
export function geminiStub(info: StubInfo): string {
  const pages = Math.max(1, Math.ceil(info.chars / GEMINI_CLI_PAGE_CHARS));
  if (pages === 1) return defaultStub(info);
  return `${defaultStub(info)} It comes back in ${pages} pages of at most ${GEMINI_CLI_PAGE_CHARS.toLocaleString("en-US")} characters; each names the next.`;
}

/**
 * An original in pages of GEMINI_CLI_PAGE_CHARS, each with the id it is stored under (the first
 * under `id` itself) and a note naming the next page's id, or the end.
 *
 * @example
 * geminiPages("gcli-1", "x".repeat(70_000)).map((p) => p.id) // ["gcli-1", "gcli-1~2", "gcli-1~3"]
 */
export function geminiPages(id: string, text: string): { id: string; text: string }[] {
  const count = Math.max(1, Math.ceil(text.length / GEMINI_CLI_PAGE_CHARS));
  if (count === 1) return [{ id, text }];
  const pageId = (n: number) => (n === 1 ? id : `${id}~${n}`);
  return Array.from({ length: count }, (_, i) => {
    const [from, to] = [i * GEMINI_CLI_PAGE_CHARS, Math.min(text.length, (i + 1) * GEMINI_CLI_PAGE_CHARS)];
    const next =
      i + 1 < count
        ? `page ${i + 1} of ${count}; call ${GEMINI_CLI_RECALL_TOOL} with ${JSON.stringify({ id: pageId(i + 2) })} for the next`
        : `page ${count} of ${count}, the end`;
    return {
      id: pageId(i + 1),
      text: `${text.slice(from, to)}\n[recall: characters ${from}–${to} of ${text.length}; ${next}]`,
    };
  });
}

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

/**
 * The last model a Gemini CLI transcript names (a JSON session file, or JSON lines), its tokens, and
 * how many model messages the read part holds (the next output's call index; a floor past the tail).
 */
async function lastModel(path: string): Promise<{ model: string; context: number; calls: number } | null> {
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
  const calls = (records as { model?: unknown }[]).filter((r) => typeof r?.model === "string").length;
  for (const r of records.reverse() as { model?: unknown; tokens?: { input?: unknown; output?: unknown } }[]) {
    if (typeof r?.model !== "string") continue;
    return { model: r.model, context: n(r.tokens?.input) + n(r.tokens?.output), calls };
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
  // Too long to parse: each model message names its model once.
  return { model, context: n(counts.input) + n(counts.output), calls: [...text.matchAll(/"model"\s*:\s*"/g)].length };
}

/**
 * Answers one AfterTool input: the JSON to print (empty: leave the result as it is).
 *
 * @example
 * await geminiCliHook({ hook_event_name: "AfterTool", session_id: "s", tool_name: "run_shell_command", tool_response: { llmContent: big } })
 * // '{"hookSpecificOutput":{"hookEventName":"AfterTool","tailToolCallRequest":{"name":"mcp_offload_recall_tool_output","args":{"id":"gcli-s-…"}}}}'
 */
export async function geminiCliHook(input: AfterToolInput, options: HookEnv = {}): Promise<string> {
  const env = options.env ?? process.env;
  const onError = options.onError ?? (() => {});
  try {
    const storeOptions = hookStoreOptions(env);
    if (storeOptions === null || typeof input.session_id !== "string") return "";
    if (input.hook_event_name === "SessionEnd") {
      if (typeof input.transcript_path !== "string") return "";
      await reportSessionEnd(
        new HookStore(storeOptions, input.session_id),
        options.gate ?? hookGate(env, onError),
        input.transcript_path,
        {
          format: "gemini-cli",
          sessionId: input.session_id,
          recallToolName: GEMINI_CLI_RECALL_TOOL,
          env,
          align: "tool_order",
        },
        onError,
      );
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
      stub: keptStub(store, geminiStub),
      // What the hook knows of the session, for the gate's session-aware horizon (docs/design/economics.md §13).
      request: { agent: "gemini-cli", ...(last === null ? {} : { call_index: last.calls }) },
      onError,
    });
    // The usage shape the session reads: the transcript's last call as input, so the gate sees the history's size.
    if (last) session.observe({ input_tokens: last.context, output_tokens: 0 });
    const id = `gcli-${randomUUID().slice(0, 13)}`;
    const answer = await session.offload(id, input.tool_name, text);
    const decisionId = session.decisionIdFor(id);
    const stub = session.stubFor(id);
    // The original in pages under the CLI's cut (the first replaces the whole one under `id`), and the
    // stub as an entry of its own, under an id no decision has, for the tail call to return. A store that
    // fails means no stub: the decision is recorded as not fired.
    const stubEntry = `gcli-s-${randomUUID().slice(0, 13)}`;
    const stored =
      stub !== undefined &&
      (await (async () => {
        for (const page of geminiPages(id, text)) await store.capped.set(page.id, page.text);
        await store.capped.set(stubEntry, answer);
        return true;
      })().catch((error: unknown) => (onError(error), false)));
    if (decisionId !== undefined)
      await store.record({ id, tool: input.tool_name, decision_id: decisionId, fire: stored });
    if (!stored) return "";
    return JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "AfterTool",
        tailToolCallRequest: { name: GEMINI_CLI_RECALL_TOOL, args: { id: stubEntry } },
      },
    });
  } catch (error) {
    onError(error);
    return "";
  }
}
