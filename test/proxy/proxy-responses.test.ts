import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { responsesRequest } from "../../src/proxy/adapters";
import { ledgerSessionBase } from "../../src/proxy/observe";
import { sessionOf } from "../../src/proxy/session";
import type { SessionState } from "../../src/proxy/session-state";
import { putRow, resetState } from "../support/helpers";
import { PROD_KEY } from "../support/secrets";
import { mockProvider, proxyCall } from "./proxy-support";

// OpenAI's Responses API with the history upstream: the client sends only
// what is new and names the answer it continues (previous_response_id).
// The proxy follows the chain from answer to answer, so every request of
// the conversation lands in the session its first request opened, and a
// tool output sent there is decided once.

const MODEL = "gpt-5";
const OUTPUT = Array.from({ length: 400 }, (_, i) => `row ${i}: value_${i * 7}`).join("\n");

function responses(body: object): Request {
  return new Request("http://gate.test/proxy/openai/v1/responses", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-openai", "x-offload-gate-key": PROD_KEY },
    body: JSON.stringify(body),
  });
}

beforeEach(async () => {
  await resetState();
  await putRow(MODEL, { input: 1.25, output: 10, cache_read: 0.125 });
});
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
    const name = `agents-prod/${ledgerSessionBase(opened.id, MODEL)}`;
    const state = (await env.PROXY_SESSIONS.get(env.PROXY_SESSIONS.idFromName(name)).peek()) as SessionState;
    expect(Object.values(state.decisions)).toHaveLength(1);
    // Each answer's usage, cached input as cache reads and the rest as input.
    expect(state.usages.map((u) => [u.input, u.cache_read, u.output])).toEqual([
      [1_000, 0, 10],
      [1_500, 500, 10],
      [2_000, 1_000, 10],
    ]);
  });
});
