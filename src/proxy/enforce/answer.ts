/**
 * @module proxy/enforce/answer
 *
 * A Messages answer read whole, as enforce mode needs it to know whether the
 * model called the recall tool (docs/design/proxy.md §8.4): the JSON body,
 * or the stream's events put back together into the message they carry
 * (its content blocks, text, thinking and tool calls with their input).
 * Pure.
 */
import { isRecord } from "../../replay";
import { RECALL_TOOL_NAME, type RecallCall } from "./dialect";

/** An answer's message: its content blocks and why it stopped. */
export interface AnswerMessage {
  content: Record<string, unknown>[];
  stop_reason: string | null;
}

/**
 * The message of a JSON answer, or null when the body is not one.
 *
 * @example
 * messageOfJson('{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}')?.stop_reason // "end_turn"
 */
export function messageOfJson(text: string): AnswerMessage | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (!isRecord(value) || !Array.isArray(value.content)) return null;
    return {
      content: value.content.filter(isRecord),
      stop_reason: typeof value.stop_reason === "string" ? value.stop_reason : null,
    };
  } catch {
    return null;
  }
}

/**
 * The message a stream of server-sent events carries, put back together:
 * each block from its `content_block_start`, grown by its deltas (text,
 * thinking and its signature, a tool call's input as partial JSON, citations),
 * and the stop reason from `message_delta`. Null when the stream is not a
 * whole message (an `error` event, or no `message_stop`).
 *
 * @example
 * messageOfStream('event: message_start\ndata: {"type":"message_start","message":{"content":[]}}\n\n…event: message_stop\ndata: {"type":"message_stop"}\n\n')
 */
export function messageOfStream(text: string): AnswerMessage | null {
  const blocks: Record<string, unknown>[] = [];
  const partial = new Map<number, string>();
  let stop: string | null = null;
  let whole = false;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    let event: unknown;
    try {
      event = JSON.parse(line.slice(5).trim());
    } catch {
      continue;
    }
    if (!isRecord(event)) continue;
    if (event.type === "error") return null;
    if (event.type === "message_stop") whole = true;
    if (event.type === "message_delta" && isRecord(event.delta) && typeof event.delta.stop_reason === "string")
      stop = event.delta.stop_reason;
    const index = typeof event.index === "number" ? event.index : -1;
    if (event.type === "content_block_start" && isRecord(event.content_block)) {
      blocks[index] = { ...event.content_block };
    } else if (event.type === "content_block_delta" && isRecord(event.delta) && blocks[index] !== undefined) {
      grow(blocks[index], event.delta, index, partial);
    } else if (event.type === "content_block_stop" && partial.has(index) && blocks[index] !== undefined) {
      const json = partial.get(index)!;
      try {
        blocks[index].input = json === "" ? {} : (JSON.parse(json) as unknown);
      } catch {
        return null;
      }
    }
  }
  return whole ? { content: blocks.filter((block) => block !== undefined), stop_reason: stop } : null;
}

function grow(
  block: Record<string, unknown>,
  delta: Record<string, unknown>,
  index: number,
  partial: Map<number, string>,
): void {
  const append = (field: string, value: unknown) => {
    if (typeof value === "string") block[field] = `${typeof block[field] === "string" ? block[field] : ""}${value}`;
  };
  if (delta.type === "text_delta") append("text", delta.text);
  else if (delta.type === "thinking_delta") append("thinking", delta.thinking);
  else if (delta.type === "signature_delta") block.signature = delta.signature;
  else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string")
    partial.set(index, (partial.get(index) ?? "") + delta.partial_json);
  else if (delta.type === "citations_delta")
    block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
}

/**
 * The recalls an answer asks for, when it stopped to call tools and every
 * tool it calls is the recall tool; null otherwise (no tool call, or one
 * the client must run: that answer goes to the client as it is).
 *
 * @example
 * recallCalls({ stop_reason: "tool_use", content: [{ type: "tool_use", id: "toolu_r", name: "recall_tool_output", input: { id: "toolu_1" } }] })
 * // [{ tool_use_id: "toolu_r", output: "toolu_1" }]
 */
export function recallCalls(message: AnswerMessage): RecallCall[] | null {
  if (message.stop_reason !== "tool_use") return null;
  const calls = message.content.filter((block) => block.type === "tool_use");
  if (calls.length === 0 || calls.some((call) => call.name !== RECALL_TOOL_NAME || typeof call.id !== "string"))
    return null;
  return calls.map((call) => ({
    tool_use_id: call.id as string,
    output: isRecord(call.input) && typeof call.input.id === "string" ? call.input.id : null,
  }));
}
