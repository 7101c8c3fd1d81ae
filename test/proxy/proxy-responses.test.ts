import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { responsesRequest } from "../../src/proxy/adapters";
import { sessionOf } from "../../src/proxy/session";
import type { SessionState } from "../../src/proxy/session-state";
import { PROD_KEY } from "../support/secrets";
import { freshState, mockProvider, proxyCall, proxyPost, sessionStub } from "./proxy-support";

// OpenAI's Responses API with the history upstream: the client sends only
// what is new and names the answer it continues (previous_response_id).
// The proxy follows the chain from answer to answer, so every request of
// the conversation lands in the session its first request opened, and a
// tool output sent there is decided once.

const MODEL = "gpt-5";
const OUTPUT = Array.from({ length: 400 }, (_, i) => `row ${i}: value_${i * 7}`).join("\n");

function responses(body: object): Request {
  return proxyPost("/proxy/openai/v1/responses", JSON.stringify(body), {
    authorization: "Bearer sk-openai",
    "x-offload-gate-key": PROD_KEY,
  });
}

beforeEach(() => freshState(MODEL, { input: 1.25, output: 10, cache_read: 0.125 }));
afterEach(() => vi.restoreAllMocks());

describe("a Responses conversation through the proxy", () => {
  it("follows previous_response_id from answer to answer into one session, and decides its tool output once", async () => {
    let n = 0;
    mockProvider(() =>
      Response.json({
        id: `resp_${++n}`,
        object: "response",
        model: MODEL,
        output: [],
        usage: { input_tokens: 1_000 * n, input_tokens_details: { cached_tokens: 500 * (n - 1) }, output_tokens: 10 },
      }),
    );
    const first = { model: MODEL, instructions: "Be brief.", input: "list the table", tools: [] };
    await proxyCall(responses(first));
    await proxyCall(
      responses({
        model: MODEL,
        previous_response_id: "resp_1",
        input: [{ type: "function_call_output", call_id: "call_1", output: OUTPUT }],
      }),
    );
    await proxyCall(responses({ model: MODEL, previous_response_id: "resp_2", input: "thanks" }));

    const opened = sessionOf({
      header: null,
      userId: null,
      promptCacheKey: null,
      previousResponseId: null,
      prefix: responsesRequest(first)!.prefix,
    });
    expect(opened.source).toBe("prefix");
    const state = (await sessionStub("agents-prod", opened.id, MODEL).peek()) as SessionState;
    expect(Object.values(state.decisions)).toHaveLength(1);
    // Each answer's usage, cached input as cache reads and the rest as input.
    expect(state.usages.map((u) => [u.input, u.cache_read, u.output])).toEqual([
      [1_000, 0, 10],
      [1_500, 500, 10],
      [2_000, 1_000, 10],
    ]);
  });
});
