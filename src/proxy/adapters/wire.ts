/**
 * @module proxy/adapters/wire
 *
 * What each provider adapter turns a request into (docs/design/proxy.md
 * §6): the conversation as the parts replay's normalized trace is made of,
 * where each model answer starts, and what may name the session. The text
 * is held only while the request is being read (recall detection reads it);
 * nothing of it is kept.
 */
import type { PartKind, Usage } from "../../replay";

/** The endpoints the proxy reads: Anthropic's Messages, OpenAI's Responses and Chat Completions. */
export type ObservedEndpoint = "messages" | "responses" | "chat";

/** One part of the request's input, in order. */
export interface WirePart {
  kind: PartKind;
  text: string;
  tool: string | null;
  call_id: string | null;
}

/** A request as the proxy reads it. */
export interface WireRequest {
  model: string;
  parts: WirePart[];
  /** Indices into `parts` where an earlier model answer starts: the calls before this one end there. */
  answers: number[];
  /** The cache write the request's markers ask for: "1h" if any marker says so, "5m" for any other, null for none. */
  ttl: "5m" | "1h" | null;
  /** Whether the history lives upstream (`previous_response_id`): every tool output sent is new. */
  continued: boolean;
  userId: string | null;
  promptCacheKey: string | null;
  previousResponseId: string | null;
  /** The text the prefix rule of ./session.ts hashes: system, tools, first user turn. */
  prefix: string;
}

/** What an answer says about itself: its usage as the provider reported it, and its id (Responses). */
export interface WireAnswer {
  usage: Usage | null;
  responseId: string | null;
}

/** A provider's adapter: its request reader and its answer reader (a JSON body or a stream's events). */
export interface WireAdapter {
  request(body: unknown): WireRequest | null;
  /** Reads one JSON value: the whole answer, or one server-sent event's data. Merges into `into`. */
  answer(value: unknown, into: WireAnswer): void;
}

/**
 * The tool outputs a request sends for the first time: with the history
 * resent, those after the last model answer; with it upstream
 * (`previous_response_id`), every one sent.
 *
 * @example
 * freshOutputs(request) // [7, 8]: the part indices of this turn's two tool results
 */
export function freshOutputs(request: WireRequest): number[] {
  const from = request.continued ? 0 : (request.answers[request.answers.length - 1] ?? 0);
  const fresh: number[] = [];
  request.parts.forEach((part, index) => {
    if (index >= from && part.kind === "tool_output") fresh.push(index);
  });
  return fresh;
}

/**
 * A string field of a record, or null.
 *
 * @example
 * stringField({ model: "gpt-5" }, "model") // "gpt-5"
 */
export function stringField(record: Record<string, unknown>, name: string): string | null {
  const value = record[name];
  return typeof value === "string" ? value : null;
}
