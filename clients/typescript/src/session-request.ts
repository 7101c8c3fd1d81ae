/**
 * @module session-request
 *
 * What an offload session sends to `POST /v1/gate` for one tool output. Kept
 * apart from the session's bookkeeping so the one rule it encodes is in one
 * place: the caller's fields first, then the session's own facts on top (the
 * model, the session, the tool, the stub's size), which the caller cannot
 * contradict; sizes in real tokens, since chars ÷ 4 undercounts them by 7–40%.
 */
import type { GateRequest } from "./client-types.js";
import { toolNameForGate } from "./stub.js";

/** The facts of one decision the session knows. */
export interface DecideFacts {
  model: string;
  sessionId: string;
  toolName: string;
  /** The output's size in real tokens: what a recall reads back, too. */
  tokens: number;
  stubTokens: number;
  /** The history's size as the last call reported it. */
  contextTokens: number;
}

/**
 * The gate request: cache_aware unless the caller asked for seed, with the
 * history's size (seed mode prices without it; the outcome carries it instead).
 *
 * @example
 * decideRequest({}, { model: "claude-opus-4-6", sessionId: "s", toolName: "web fetch", tokens: 9_000, stubTokens: 40, contextTokens: 2_000 }).tool_name // "web_fetch"
 */
export function decideRequest(extra: Partial<GateRequest>, facts: DecideFacts): GateRequest {
  const seed = (extra.pricing_mode ?? "cache_aware") === "seed";
  return {
    output_tokens: facts.tokens,
    recall_input_tokens: facts.tokens,
    ...extra,
    pricing_mode: seed ? "seed" : "cache_aware",
    ...(seed ? {} : { context_tokens: facts.contextTokens }),
    model_name: facts.model,
    stub_tokens: facts.stubTokens,
    session_id: facts.sessionId,
    tool_name: toolNameForGate(facts.toolName),
  } as GateRequest;
}
