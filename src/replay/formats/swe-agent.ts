/**
 * @module replay/formats/swe-agent
 *
 * SWE-agent's `.traj` and mini-swe-agent's `.traj.json`. Both hold the
 * conversation as one list (`history` with `role`, `content`,
 * `message_type`; `messages` with `role`, `content`), and every assistant
 * message is one call whose input is everything before it. SWE-agent
 * records no per-call usage, only `info.model_stats` (`tokens_sent`,
 * `tokens_received`, `api_calls`, `instance_cost`); mini-swe-agent records
 * LiteLLM's usage in `messages[].extra.response.usage` (`prompt_tokens`,
 * `completion_tokens`, `prompt_tokens_details.cached_tokens`); its version 2
 * (`trajectory_format` "mini-swe-agent-1.1") calls a tool: the assistant
 * message's `tool_calls`, answered by "tool" messages naming the call, and
 * an "exit" message at the end. A tool output is an observation: its tool is
 * the function called, or the command's first word. Neither format has timestamps. Pure.
 */

import { listDocument, type ParseResult } from "./lines";
import { count, instant, isRecord, promptUsage, TraceBuilder, textOf, UNNAMED_MODEL, type Usage } from "./trace";

/**
 * Parses a SWE-agent `.traj`.
 *
 * @example
 * parseSweAgent(JSON.stringify({ history: [...], trajectory: [...], info: { model_stats: { tokens_sent: 9000 } } }), "a.traj")
 */
export function parseSweAgent(text: string, path: string): ParseResult {
  const { doc, list: history, issues } = listDocument(text, path, "history", 'a .traj object with a "history" list');
  if (doc === null) return { trace: null, issues };
  const b = new TraceBuilder("swe-agent", sessionName(path));
  const model = modelOfSweAgent(doc);
  if (model === null)
    b.notes.push('the transcript names no model (no "replay_config" agent.model.name, no "info.model_name")');
  let command = "";
  history.forEach((entry, index) => {
    if (!isRecord(entry)) {
      issues.push({ path, line: null, expected: `history[${index}]: an object with "role" and "content"` });
      return;
    }
    const content = textOf(entry.content);
    const role = entry.role;
    if (role === "assistant") {
      b.call(model ?? UNNAMED_MODEL, null, null, index);
      const calls = Array.isArray(entry.tool_calls) ? entry.tool_calls.filter(isRecord) : [];
      // A text-mode action is the command inside the answer: a tool call of its own, the characters split.
      const action =
        calls.length === 0 && typeof entry.action === "string" && content.includes(entry.action) ? entry.action : "";
      b.output(b.chars(b.add({ kind: "assistant", text: content, chars: content.length - action.length })));
      if (action !== "")
        b.output(
          b.chars(b.add({ kind: "tool_call", text: action, tool: commandHead(action), call_id: `act-${index}` })),
        );
      for (const call of calls) {
        const fn = isRecord(call.function) ? call.function : {};
        b.toolCall(fn.arguments, fn.name, call.id);
      }
      command = action !== "" ? `act-${index}` : "";
      return;
    }
    if (role === "system" || entry.message_type === "system_prompt") b.add({ kind: "system", text: content });
    else {
      const ids = Array.isArray(entry.tool_call_ids) ? entry.tool_call_ids : [];
      const callId = typeof ids[0] === "string" ? ids[0] : command !== "" ? command : null;
      // An observation answers an action; the task before the first action is the user's.
      if ((role === "tool" || entry.message_type === "observation") && callId !== null)
        b.add({ kind: "tool_output", text: content, call_id: callId });
      else b.add({ kind: "user", text: content });
      command = "";
    }
  });
  const stats = isRecord(doc.info) && isRecord(doc.info.model_stats) ? doc.info.model_stats : null;
  if (stats !== null) {
    b.totals = {
      input_tokens: count(stats.tokens_sent),
      output_tokens: count(stats.tokens_received),
      cost_usd: count(stats.instance_cost),
      api_calls: count(stats.api_calls),
    };
  } else b.notes.push("no info.model_stats: no recorded totals to check against");
  b.notes.push("no timestamps: the cache is assumed never to expire");
  return { trace: b.finish(), issues };
}

/**
 * Parses a mini-swe-agent `.traj.json`.
 *
 * @example
 * parseMiniSweAgent(JSON.stringify({ messages: [...], info: { config: { model: { model_name: "gpt-5" } } } }), "a.traj.json")
 */
export function parseMiniSweAgent(text: string, path: string): ParseResult {
  const {
    doc,
    list: messages,
    issues,
  } = listDocument(text, path, "messages", 'a .traj.json object with a "messages" list');
  if (doc === null) return { trace: null, issues };
  const info = isRecord(doc.info) ? doc.info : {};
  const config = isRecord(info.config) && isRecord(info.config.model) ? info.config.model : {};
  const model = typeof config.model_name === "string" ? config.model_name : null;
  const b = new TraceBuilder("mini-swe-agent", sessionName(path));
  if (model === null) b.notes.push('the transcript names no model (no "info.config.model.model_name")');
  let command = "";
  let observations = 0;
  let timed = 0;
  let exits = 0;
  messages.forEach((message, index) => {
    if (!isRecord(message) || typeof message.role !== "string") {
      issues.push({ path, line: null, expected: `messages[${index}]: an object with "role" and "content"` });
      return;
    }
    const content = textOf(message.content);
    if (message.role === "assistant") {
      const extra = isRecord(message.extra) ? message.extra : {};
      const response = isRecord(extra.response) ? extra.response : {};
      const at = instant(response.created) ?? instant(extra.timestamp);
      b.call(model ?? UNNAMED_MODEL, at, litellmUsage(response.usage), index);
      if (at !== null) timed++;
      // Version 2 calls a tool: the command is in `tool_calls`, its output a "tool" message naming the call.
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
      if (calls.length > 0) {
        if (content !== "") b.output(b.chars(b.add({ kind: "assistant", text: content })));
        for (const call of calls) {
          const fn = isRecord(call.function) ? call.function : {};
          b.toolCall(fn.arguments, fn.name, call.id);
        }
        command = "";
        return;
      }
      // Version 2 text mode names its block `mswea_bash_command` and keeps the parsed command in `extra.actions`.
      const actions = Array.isArray(extra.actions) ? extra.actions.filter(isRecord) : [];
      command =
        typeof actions[0]?.command === "string" && content.includes(actions[0].command)
          ? actions[0].command
          : bashBlock(content);
      const commandChars = command.length;
      b.output(b.chars(b.add({ kind: "assistant", text: content, chars: content.length - commandChars })));
      if (command !== "")
        b.add({ kind: "tool_call", text: command, chars: commandChars, tool: "bash", call_id: `obs-${observations}` });
      return;
    }
    if (message.role === "system") b.add({ kind: "system", text: content });
    else if (message.role === "tool" && typeof message.tool_call_id === "string")
      b.add({ kind: "tool_output", text: content, call_id: message.tool_call_id });
    else if (message.role === "exit") exits++;
    else if (b.last() !== undefined && command !== "") {
      b.add({ kind: "tool_output", text: content, tool: "bash", call_id: `obs-${observations}` });
      observations++;
      command = "";
    } else b.add({ kind: "user", text: content });
  });
  const stats = isRecord(info.model_stats) ? info.model_stats : null;
  if (stats !== null) b.totals = { cost_usd: count(stats.instance_cost), api_calls: count(stats.api_calls) };
  if (timed === 0) b.notes.push("no timestamps: the cache is assumed never to expire");
  if (exits > 0) b.notes.push(`${exits} "exit" messages (the run's end, never sent to the model) left out`);
  return { trace: b.finish(), issues };
}

/**
 * LiteLLM's usage in the trace's shape: `prompt_tokens` include the cached
 * ones and, for Anthropic, the cache writes (`cache_creation_input_tokens`).
 *
 * @example
 * litellmUsage({ prompt_tokens: 9000, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 8000 } })
 * // { input: 1000, cache_read: 8000, cache_write_5m: 0, cache_write_1h: 0, output: 300 }
 */
export function litellmUsage(raw: unknown): Usage | null {
  if (!isRecord(raw) || raw.prompt_tokens === undefined) return null;
  const details = isRecord(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  // Anthropic's writes, or (GPT-5.6 and later) OpenAI's 30-minute cache writes.
  const written = raw.cache_creation_input_tokens ?? details.cache_write_tokens;
  return promptUsage(raw.prompt_tokens, details.cached_tokens, written, raw.completion_tokens);
}

function modelOfSweAgent(doc: Record<string, unknown>): string | null {
  let config: unknown = doc.replay_config;
  if (typeof config === "string") {
    try {
      config = JSON.parse(config);
    } catch {
      config = null;
    }
  }
  if (
    isRecord(config) &&
    isRecord(config.agent) &&
    isRecord(config.agent.model) &&
    typeof config.agent.model.name === "string"
  )
    return config.agent.model.name;
  const info = isRecord(doc.info) ? doc.info : {};
  return typeof info.model_name === "string" ? info.model_name : null;
}

/** The command of the last ```bash block of an answer (mini-swe-agent runs exactly one). */
function bashBlock(content: string): string {
  const blocks = [...content.matchAll(/```(?:bash|sh|mswea_bash_command)?\s*\n([\s\S]*?)```/g)];
  return blocks.length === 0 ? "" : (blocks[blocks.length - 1]![1] ?? "").trim();
}

/** The first word of a command: the tool name a SWE-agent observation is filed under. */
export function commandHead(command: string): string {
  const match = /^\s*(?:```\w*\s*)?([A-Za-z_][\w.-]*)/m.exec(
    command.split("\n").find((l) => l.trim() !== "" && !l.startsWith("```")) ?? command,
  );
  return match?.[1] ?? "unknown";
}

function sessionName(path: string): string {
  return (
    path
      .split("/")
      .pop()
      ?.replace(/\.traj(\.json)?$/, "") ?? path
  );
}
