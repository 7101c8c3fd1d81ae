/**
 * @module proxy/enforce/responses
 *
 * OpenAI's Responses request, as enforce mode rewrites it when the client
 * resends the history (docs/design/proxy.md §8.6): each stubbed
 * `function_call_output`'s output replaced by the stub our clients write,
 * the recall tool appended to `tools` as a function, each resolved recall
 * put back where it happened; and an answer (JSON, or the stream's
 * `response.completed` event) whose function calls are all the recall
 * tool. A request that continues a stored response (`previous_response_id`)
 * is enforced only as far as it goes: its new outputs are stubbed on their
 * first sending, and the recalls are already in the stored history, so none
 * is put back. A session on a conversation (`conversation`), or asking for
 * OpenAI's own compaction (`context_management`), is observed. Pure.
 */
import { isRecord } from "../../replay";
import {
  type AnswerRecall,
  type Dialect,
  RECALL_DESCRIPTION,
  RECALL_SCHEMA,
  RECALL_TOOL_NAME,
  type RequestView,
  type Rewrite,
  recallAnswer,
  type ToolOutput,
  withRecalls,
} from "./dialect";
import type { RecallExchange } from "./store";

/** The recall tool as a Responses function (not strict: its schema is our clients' own). */
export const RESPONSES_RECALL_TOOL = Object.freeze({
  type: "function",
  name: RECALL_TOOL_NAME,
  description: RECALL_DESCRIPTION,
  parameters: RECALL_SCHEMA,
  strict: false,
});

// Items only the model writes: one of them in the input means an earlier answer.
const ANSWER_ITEMS = new Set(["function_call", "reasoning", "custom_tool_call", "web_search_call", "local_shell_call"]);

/** Why a Responses session is not the proxy's to enforce, or null. */
function refusalOf(body: Record<string, unknown>): string | null {
  if (body.conversation !== undefined && body.conversation !== null) return "the history is upstream (conversation)";
  if (body.context_management !== undefined && body.context_management !== null)
    return "the request uses the provider's context_management";
  if (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && tool.name === RECALL_TOOL_NAME))
    return `the client has a tool named ${RECALL_TOOL_NAME} of its own`;
  return null;
}

/**
 * Reads a Responses request for enforce mode, or null when it is not one.
 *
 * @example
 * readResponses({ model: "gpt-5", input: "hi" })?.start // true
 */
export function readResponses(body: unknown): RequestView | null {
  if (!isRecord(body) || typeof body.model !== "string") return null;
  const input = typeof body.input === "string" ? [] : Array.isArray(body.input) ? body.input : null;
  if (input === null) return null;
  const tools = new Map<string, string>();
  const outputs: ToolOutput[] = [];
  // A request that continues a stored response is under way, whatever its input holds.
  const continued = typeof body.previous_response_id === "string";
  let start = !continued;
  let lastAnswer = 0;
  let chars = JSON.stringify(body.tools ?? []).length + JSON.stringify(body.instructions ?? "").length;
  for (const item of input) {
    if (!isRecord(item)) continue;
    const answer = ANSWER_ITEMS.has(String(item.type)) || item.role === "assistant";
    if (answer) {
      start = false;
      lastAnswer = outputs.length;
    }
    if (item.type === "function_call" && typeof item.call_id === "string" && typeof item.name === "string")
      tools.set(item.call_id, item.name);
    if (item.type === "function_call_output" && typeof item.call_id === "string") {
      const text = typeof item.output === "string" ? item.output : null;
      const tool = tools.get(item.call_id) ?? null;
      outputs.push({
        call_id: item.call_id,
        text: text ?? "",
        tool,
        before: chars,
        stubbable: text !== null && tool !== RECALL_TOOL_NAME,
        latest: false,
      });
    }
    chars += JSON.stringify(item).length;
  }
  for (const output of outputs.slice(lastAnswer)) output.latest = true;
  return { model: body.model, start, refusal: refusalOf(body), outputs, messages: input.length };
}

/**
 * The request as it goes upstream: a copy with the stubs in, the recall
 * function last in `tools`, and each resolved recall put back.
 *
 * @example
 * rewriteResponses(body, { stubs: new Map([["call_1", "[offloaded: …]"]]), recalls: [], original: () => null })
 */
export function rewriteResponses(body: Record<string, unknown>, rewrite: Rewrite): Record<string, unknown> {
  const tools = Array.isArray(body.tools) ? [...body.tools, RESPONSES_RECALL_TOOL] : [RESPONSES_RECALL_TOOL];
  if (!Array.isArray(body.input)) return { ...body, tools };
  // Continuing a stored response, the recalls resolved before are in OpenAI's copy of the history already.
  const recalls = typeof body.previous_response_id === "string" ? [] : rewrite.recalls;
  const input = withRecalls(
    body.input,
    recalls,
    (exchange) => recallResponsesItems(exchange, rewrite.original),
    (item) => {
      if (!isRecord(item) || item.type !== "function_call_output" || typeof item.call_id !== "string") return item;
      const stub = rewrite.stubs.get(item.call_id);
      return stub === undefined ? item : { ...item, output: stub };
    },
  );
  return { ...body, tools, input };
}

/**
 * A resolved recall as the items the provider saw: the answer's output
 * items, then one `function_call_output` per recall call.
 *
 * @example
 * recallResponsesItems({ after: 3, assistant: '[{"type":"function_call",…}]', results: [{ tool_use_id: "call_r", output: "call_1" }] }, () => "…")
 */
export function recallResponsesItems(exchange: RecallExchange, original: (callId: string) => string | null): unknown[] {
  const items = JSON.parse(exchange.assistant) as unknown;
  return [
    ...(Array.isArray(items) ? items : [items]),
    ...exchange.results.map((result) => ({
      type: "function_call_output",
      call_id: result.tool_use_id,
      output: recallAnswer(result.output, original),
    })),
  ];
}

/**
 * What a Responses answer asks of the recall function, when every function
 * it calls is the recall tool: its output items go back as they came.
 *
 * @example
 * responsesRecall('{"output":[{"type":"function_call","call_id":"c9","name":"recall_tool_output","arguments":"{\\"id\\":\\"c1\\"}"}]}', false)?.calls
 * // [{ tool_use_id: "c9", output: "c1" }]
 */
export function responsesRecall(text: string, streamed: boolean): AnswerRecall | null {
  const output = streamed ? outputOfStream(text) : outputOfJson(text);
  if (output === null) return null;
  const calls = output.filter((item) => item.type === "function_call" || item.type === "custom_tool_call");
  if (calls.length === 0 || calls.some((call) => call.name !== RECALL_TOOL_NAME || typeof call.call_id !== "string"))
    return null;
  return {
    // The output items as one JSON array: ./store.ts keeps an exchange's answer as one value.
    assistant: output as unknown as Record<string, unknown>,
    calls: calls.map((call) => ({ tool_use_id: call.call_id as string, output: recalledId(call.arguments) })),
  };
}

function recalledId(args: unknown): string | null {
  try {
    const value = typeof args === "string" ? (JSON.parse(args) as unknown) : args;
    return isRecord(value) && typeof value.id === "string" ? value.id : null;
  } catch {
    return null;
  }
}

function outputOf(response: unknown): Record<string, unknown>[] | null {
  if (!isRecord(response) || !Array.isArray(response.output)) return null;
  if (response.status !== undefined && response.status !== "completed") return null;
  return response.output.filter(isRecord);
}

function outputOfJson(text: string): Record<string, unknown>[] | null {
  try {
    return outputOf(JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

function outputOfStream(text: string): Record<string, unknown>[] | null {
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:") || !line.includes("response.completed")) continue;
    try {
      const event = JSON.parse(line.slice(5).trim()) as unknown;
      if (isRecord(event) && event.type === "response.completed") return outputOf(event.response);
    } catch {
      // Not this line.
    }
  }
  return null;
}

/** OpenAI's Responses API with the history resent, as enforce mode reads and rewrites it. */
export const RESPONSES_DIALECT: Dialect = {
  list: "input",
  read: readResponses,
  rewrite: rewriteResponses,
  recallMessages: recallResponsesItems,
  answerRecall: responsesRecall,
};
