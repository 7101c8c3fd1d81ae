/**
 * @module replay/formats/atif
 *
 * ATIF, the Agent Trajectory Interchange Format of the Harbor project: one
 * JSON document with `schema_version` ("ATIF-v1.x"), `session_id`, `agent`
 * (`model_name`) and `steps`, each with `source` (system, user, agent),
 * `message`, `reasoning_content`, `tool_calls` (`tool_call_id`,
 * `function_name`, `arguments`), `observation.results` (`source_call_id`,
 * `content`) and `metrics` (`prompt_tokens`, which include `cached_tokens`,
 * and `completion_tokens`; Anthropic's cache writes, where a writer keeps
 * them, in `metrics.extra.cache_creation_input_tokens`). Each agent step is
 * one call: its input is every step before it; its observations come after
 * it. Pure.
 */

import { listDocument, type ParseResult } from "./lines";
import { count, instant, isRecord, promptUsage, TraceBuilder, textOf, UNNAMED_MODEL, type Usage } from "./trace";

/**
 * Parses one ATIF trajectory.
 *
 * @example
 * parseAtif(JSON.stringify({ schema_version: "ATIF-v1.4", session_id: "s", agent: { name: "a", version: "1", model_name: "gpt-5" }, steps: [] }), "t.json").trace?.session // "s"
 */
export function parseAtif(text: string, path: string): ParseResult {
  const { doc, list: steps, issues } = listDocument(text, path, "steps", 'an ATIF object with a "steps" list');
  if (doc === null) return { trace: null, issues };
  const agent = isRecord(doc.agent) ? doc.agent : {};
  // ATIF names it `model_name`; early writers (ATIF 1.4 without the prefix) `model`.
  const defaultModel =
    typeof agent.model_name === "string" ? agent.model_name : typeof agent.model === "string" ? agent.model : null;
  const b = new TraceBuilder("atif", typeof doc.session_id === "string" ? doc.session_id : path);
  let unnamed = false;
  steps.forEach((step, index) => {
    if (!isRecord(step) || typeof step.source !== "string") {
      issues.push({ path, line: null, expected: `steps[${index}]: an object with "source"` });
      return;
    }
    const message = textOf(step.message);
    if (step.source === "agent") {
      const model = typeof step.model_name === "string" ? step.model_name : defaultModel;
      if (model === null && !unnamed) {
        unnamed = true;
        b.notes.push('the transcript names no model (no "model_name" on a step, no agent.model_name)');
      }
      b.call(model ?? UNNAMED_MODEL, instant(step.timestamp), metricsUsage(step.metrics), index);
      if (typeof step.reasoning_content === "string" && step.reasoning_content !== "")
        b.output(b.chars(b.add({ kind: "assistant", text: step.reasoning_content })));
      if (message !== "") b.output(b.chars(b.add({ kind: "assistant", text: message })));
      for (const call of Array.isArray(step.tool_calls) ? step.tool_calls.filter(isRecord) : [])
        b.toolCall(call.arguments, call.function_name, call.tool_call_id);
    } else if (message !== "") b.add({ kind: step.source === "system" ? "system" : "user", text: message });
    const results =
      isRecord(step.observation) && Array.isArray(step.observation.results)
        ? step.observation.results.filter(isRecord)
        : [];
    for (const result of results) {
      b.add({
        kind: "tool_output",
        text: textOf(result.content),
        call_id: typeof result.source_call_id === "string" ? result.source_call_id : null,
      });
    }
  });
  const final = isRecord(doc.final_metrics) ? doc.final_metrics : null;
  if (final !== null) {
    b.totals = {
      input_tokens: count(final.total_prompt_tokens),
      output_tokens: count(final.total_completion_tokens),
      cost_usd: count(final.total_cost_usd),
    };
  }
  return { trace: b.finish(), issues };
}

/**
 * An ATIF step's metrics in the trace's shape.
 *
 * @example
 * metricsUsage({ prompt_tokens: 5000, cached_tokens: 4000, completion_tokens: 80 })
 * // { input: 1000, cache_read: 4000, cache_write_5m: 0, cache_write_1h: 0, output: 80 }
 */
export function metricsUsage(raw: unknown): Usage | null {
  if (!isRecord(raw) || raw.prompt_tokens === undefined) return null;
  const extra = isRecord(raw.extra) ? raw.extra : {};
  return promptUsage(raw.prompt_tokens, raw.cached_tokens, extra.cache_creation_input_tokens, raw.completion_tokens);
}
