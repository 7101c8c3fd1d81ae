/**
 * @module proxy/session
 *
 * Which session a proxied request belongs to, without bookkeeping by the
 * client (docs/design/proxy.md §5): the client's own header if it sends
 * one; else what it already sends (Claude Code's `metadata.user_id`,
 * OpenAI's `prompt_cache_key`, the chain of `previous_response_id`); else
 * a hash of the conversation's stable prefix (the model, the system prompt,
 * the tools and the first user turn). Pure but for a small per-isolate map
 * that follows a Responses chain from answer to answer.
 */
import { hashText } from "../replay";
import { SESSION_ID_PATTERN } from "../storage/rules";

export { SESSION_HEADER } from "./constants";

/** Where a session id came from, kept with the session so a report can say how far to trust it. */
export type SessionSource = "header" | "metadata.user_id" | "prompt_cache_key" | "previous_response_id" | "prefix";

/** What a request says that may name its session. */
export interface SessionHints {
  header: string | null;
  userId: string | null;
  promptCacheKey: string | null;
  previousResponseId: string | null;
  /** The stable prefix's text: model, system, tools, first user turn (hashed, never kept). */
  prefix: string;
}

// Responses chains: an answer's id → the session its request was in. Bounded, per isolate.
const chains = new Map<string, string>();
const MAX_CHAINS = 10_000;

/**
 * The session of a request, as an id the ledger accepts (`SESSION_ID_PATTERN`),
 * and where it came from.
 *
 * @example
 * sessionOf({ header: null, userId: "user_ab_account__session_5f1c…", promptCacheKey: null, previousResponseId: null, prefix: "…" })
 * // { id: "px:u:…", source: "metadata.user_id" }
 */
export function sessionOf(hints: SessionHints): { id: string; source: SessionSource } {
  if (hints.header !== null && SESSION_ID_PATTERN.test(hints.header)) return { id: hints.header, source: "header" };
  if (hints.userId !== null && hints.userId !== "")
    return { id: `px:u:${digest(hints.userId)}`, source: "metadata.user_id" };
  if (hints.promptCacheKey !== null && hints.promptCacheKey !== "")
    return { id: `px:k:${digest(hints.promptCacheKey)}`, source: "prompt_cache_key" };
  if (hints.previousResponseId !== null && hints.previousResponseId !== "") {
    const known = chains.get(hints.previousResponseId);
    return { id: known ?? `px:r:${digest(hints.previousResponseId)}`, source: "previous_response_id" };
  }
  return { id: `px:p:${digest(hints.prefix)}`, source: "prefix" };
}

/**
 * Remembers that an answer belongs to a session, so the request that
 * continues from it (`previous_response_id`) lands in the same session.
 *
 * @example
 * followChain("resp_abc", "px:r:0f3a…");
 */
export function followChain(responseId: string, session: string): void {
  if (chains.size >= MAX_CHAINS) chains.delete(chains.keys().next().value as string);
  chains.set(responseId, session);
}

/** 16 hex digits of a text's 53-bit hash: the id never shows the value it came from. */
function digest(text: string): string {
  return hashText(text).toString(16).padStart(14, "0");
}
