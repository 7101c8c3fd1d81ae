/**
 * @module replay/formats/openhands
 *
 * OpenHands trajectories: the events as `event_to_trajectory`
 * (openhands/events/serialization/event.py) writes them, a JSON list (the
 * `save_trajectory_path` file) or `{"trajectory": [...]}` (the server's
 * download). Each event is `{id, timestamp, source, message, cause}` plus
 * `action` and `args`, or `observation`, `content` and `extras`; an action
 * the model chose carries `tool_call_metadata` (`function_name`,
 * `tool_call_id`, and `model_response`: LiteLLM's response with its `id`,
 * `model` and `usage`) and `llm_metrics` (`accumulated_cost`,
 * `accumulated_token_usage`: running totals of `prompt_tokens`,
 * `completion_tokens`, `cache_read_tokens`, `cache_write_tokens`). One
 * model response is one call, however many actions it made; its usage is
 * the response's own, else the step in the running totals. An observation
 * answers its action's tool call. A `condensation` forgets the events it
 * names and puts its summary in their place. The last `accumulated_cost` is
 * the recorded cost (it includes the condenser's calls). Pure.
 */

import { jsonDocument, type ParseResult } from "./lines";
import { litellmUsage } from "./swe-agent";
import { count, instant, isRecord, type ParseIssue, promptUsage, TraceBuilder, textOf, UNNAMED_MODEL } from "./trace";

/** Actions that are not the model's choice: OpenHands itself or the user's side writes them. */
const NOT_CALLS = new Set([
  "system",
  "change_agent_state",
  "recall",
  "condensation",
  "condensation_request",
  "null",
  "push",
  "pull",
]);
/** Observations that never reach the model. */
const NOT_INPUT = new Set(["agent_state_changed", "null", "user_rejected"]);

/**
 * Whether a value looks like an OpenHands event list (its first event has an id or a source, and an action or observation).
 *
 * @example
 * isOpenHandsEvents([{ id: 0, source: "user", action: "message", args: { content: "hi" } }]) // true
 */
export function isOpenHandsEvents(list: unknown): boolean {
  if (!Array.isArray(list)) return false;
  const first = list.find(isRecord);
  return (
    first !== undefined &&
    ("action" in first || "observation" in first) &&
    ("source" in first || "id" in first) &&
    !("role" in first)
  );
}

/**
 * Parses one OpenHands trajectory.
 *
 * @example
 * parseOpenHands('[{"id":0,"source":"user","action":"message","args":{"content":"fix it"}}]', "traj.json").trace?.parts.length // 1
 */
export function parseOpenHands(text: string, path: string): ParseResult {
  const issues: ParseIssue[] = [];
  const doc = jsonDocument(text, path, issues);
  const events = Array.isArray(doc) ? doc : isRecord(doc) && Array.isArray(doc.trajectory) ? doc.trajectory : null;
  if (events === null) {
    if (doc !== null) issues.push({ path, line: null, expected: 'a JSON list of events, or {"trajectory": [...]}' });
    return { trace: null, issues };
  }
  const b = new TraceBuilder("openhands", sessionName(path));
  /** Each event's parts, to forget them at a condensation. */
  const partsOf = new Map<number, number[]>();
  const callOf = new Map<string, number>();
  let previousTotals: Record<string, unknown> | null = null;
  let lastMetrics: Record<string, unknown> | null = null;
  let unnamed = false;
  let condensations = 0;
  let fromTotals = 0;
  const skipped = new Map<string, number>();
  const remember = (event: Record<string, unknown>, id: number) => {
    const key = typeof event.id === "number" ? event.id : -1;
    const list = partsOf.get(key) ?? [];
    list.push(id);
    partsOf.set(key, list);
  };
  events.forEach((event, index) => {
    if (!isRecord(event) || (typeof event.action !== "string" && typeof event.observation !== "string")) {
      issues.push({ path, line: null, expected: `events[${index}]: an object with "action" or "observation"` });
      return;
    }
    const args = isRecord(event.args) ? event.args : {};
    const meta = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : null;
    if (isRecord(event.llm_metrics)) lastMetrics = event.llm_metrics;
    if (typeof event.observation === "string") {
      if (NOT_INPUT.has(event.observation)) {
        skipped.set(event.observation, (skipped.get(event.observation) ?? 0) + 1);
        return;
      }
      const content = textOf(event.content);
      const callId = meta !== null && typeof meta.tool_call_id === "string" ? meta.tool_call_id : null;
      const tool = meta !== null && typeof meta.function_name === "string" ? meta.function_name : event.observation;
      // An observation that answers no tool call (a recall's context, an error) reaches the model as user text.
      const id =
        callId !== null || typeof event.cause === "number"
          ? b.add({ kind: "tool_output", text: content, tool, call_id: callId ?? `cause-${String(event.cause)}` })
          : b.add({ kind: "user", text: content });
      remember(event, id);
      return;
    }
    const action = event.action as string;
    if (action === "condensation") {
      condensations++;
      const forgotten = forgottenIds(args);
      const kept: number[] = [];
      for (const [eventId, ids] of partsOf) if (!forgotten.has(eventId)) kept.push(...ids);
      for (const eventId of forgotten) partsOf.delete(eventId);
      kept.sort((x, y) => x - y);
      b.setHistory(kept);
      if (typeof args.summary === "string" && args.summary !== "")
        remember(event, b.add({ kind: "user", text: args.summary }));
      return;
    }
    if (action === "system") {
      remember(event, b.add({ kind: "system", text: textOf(args.content) }));
      return;
    }
    if (event.source !== "agent" || NOT_CALLS.has(action)) {
      if (action === "message") remember(event, b.add({ kind: "user", text: textOf(args.content) }));
      else
        skipped.set(
          `${action} (${String(event.source)})`,
          (skipped.get(`${action} (${String(event.source)})`) ?? 0) + 1,
        );
      return;
    }
    const response = meta !== null && isRecord(meta.model_response) ? meta.model_response : null;
    const responseId = response !== null && typeof response.id === "string" ? response.id : null;
    let call = responseId === null ? undefined : callOf.get(responseId);
    const repeat = call !== undefined;
    if (call === undefined) {
      const totals =
        isRecord(event.llm_metrics) && isRecord(event.llm_metrics.accumulated_token_usage)
          ? event.llm_metrics.accumulated_token_usage
          : null;
      const model =
        response !== null && typeof response.model === "string" && response.model !== ""
          ? response.model
          : totals !== null && typeof totals.model === "string" && totals.model !== ""
            ? totals.model
            : null;
      // An answer with no tool call carries no response: it is the same LLM as the call before.
      const named = model ?? b.last()?.model ?? null;
      if (named === null && !unnamed) {
        unnamed = true;
        b.notes.push("an agent action names no model (no model_response.model, no accumulated_token_usage.model)");
      }
      let usage = response === null ? null : litellmUsage(response.usage);
      if (usage === null && totals !== null) {
        const before = previousTotals ?? {};
        const step = (k: string) => count(totals[k]) - count(before[k]);
        usage = promptUsage(
          step("prompt_tokens"),
          step("cache_read_tokens"),
          step("cache_write_tokens"),
          step("completion_tokens"),
        );
        fromTotals++;
      }
      if (totals !== null) previousTotals = totals;
      call = b.call(named ?? UNNAMED_MODEL, instant(event.timestamp), usage, index);
      if (responseId !== null) callOf.set(responseId, call);
    }
    const thought = thoughtOf(args, response, repeat);
    if (thought !== "") {
      const id = b.add({ kind: "assistant", text: thought });
      b.outputTo(call, b.chars(id));
      remember(event, id);
    }
    if (meta !== null && typeof meta.function_name === "string") {
      const id = b.add({
        kind: "tool_call",
        text: JSON.stringify(toolArgs(response, meta.tool_call_id) ?? args),
        tool: meta.function_name,
        call_id: typeof meta.tool_call_id === "string" ? meta.tool_call_id : null,
      });
      b.outputTo(call, b.chars(id));
      remember(event, id);
    } else if (action !== "message") {
      // A model without function calling: the action is in its answer; its observation answers it.
      const id = b.add({
        kind: "tool_call",
        text: JSON.stringify(args),
        tool: action,
        call_id: `cause-${String(event.id)}`,
      });
      b.outputTo(call, b.chars(id));
      remember(event, id);
    }
  });
  const metrics = lastMetrics as Record<string, unknown> | null;
  if (metrics !== null) {
    const totals = isRecord(metrics.accumulated_token_usage) ? metrics.accumulated_token_usage : {};
    b.totals = {
      input_tokens: count(totals.prompt_tokens),
      output_tokens: count(totals.completion_tokens),
      cost_usd: count(metrics.accumulated_cost),
    };
  } else b.notes.push("no llm_metrics: no recorded cost to check against");
  if (fromTotals > 0)
    b.notes.push(`${fromTotals} calls' usage taken as the step in accumulated_token_usage (no model_response usage)`);
  if (condensations > 0)
    b.notes.push(`${condensations} condensations: the events each forgot are left out of the calls after it`);
  if (skipped.size > 0)
    b.notes.push(
      `events with no model input, by type: ${[...skipped.entries()]
        .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
        .map(([type, n]) => `${type} ${n}`)
        .join(", ")}`,
    );
  return { trace: b.finish(), issues };
}

/** The events a condensation forgets: a list of ids, or a range. */
function forgottenIds(args: Record<string, unknown>): Set<number> {
  const ids = new Set<number>();
  if (Array.isArray(args.forgotten_event_ids))
    for (const id of args.forgotten_event_ids) if (typeof id === "number") ids.add(id);
  const start = args.forgotten_events_start_id;
  const end = args.forgotten_events_end_id;
  if (typeof start === "number" && typeof end === "number") for (let id = start; id <= end; id++) ids.add(id);
  return ids;
}

/** The model's text of the answer, once per response: its message content, else the action's `thought`. */
function thoughtOf(args: Record<string, unknown>, response: Record<string, unknown> | null, repeat: boolean): string {
  if (repeat) return "";
  const message =
    response !== null && Array.isArray(response.choices) && isRecord(response.choices[0])
      ? response.choices[0].message
      : null;
  if (isRecord(message) && typeof message.content === "string" && message.content !== "") return message.content;
  if (typeof args.thought === "string" && args.thought !== "") return args.thought;
  return typeof args.content === "string" && response === null ? args.content : "";
}

/** The arguments of one tool call as the model sent them. */
function toolArgs(response: Record<string, unknown> | null, callId: unknown): unknown {
  const message =
    response !== null && Array.isArray(response.choices) && isRecord(response.choices[0])
      ? response.choices[0].message
      : null;
  const calls = isRecord(message) && Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  const call = calls.find((c) => c.id === callId);
  return call !== undefined && isRecord(call.function) ? call.function.arguments : undefined;
}

function sessionName(path: string): string {
  return (
    path
      .split("/")
      .pop()
      ?.replace(/\.json(\.gz)?$/, "") ?? path
  );
}
