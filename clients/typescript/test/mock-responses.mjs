// A mock OpenAI Responses API on loopback for the OpenAI Agents SDK's own
// OpenAI provider: POST /v1/responses answers the next scripted output with
// its usage, and every request body is kept for the test to read.
import { createServer } from "node:http";

/**
 * Starts the mock; `script(body, n)` returns `{ output, usage }` for the n-th request (1-based).
 *
 * @example
 * const mock = await startMockResponses((body, n) => ({ output: [message("done")], usage: usage(1_000, 0) }));
 * mock.baseUrl; // http://127.0.0.1:PORT/v1
 */
export async function startMockResponses(script) {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url.startsWith("/v1/responses")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw);
      requests.push(body);
      const n = requests.length;
      const { output, usage, diagnostics } = script(body, n);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: `resp_${n}`,
          object: "response",
          created_at: Math.floor(Date.now() / 1000),
          status: "completed",
          model: body.model,
          output,
          usage,
          parallel_tool_calls: true,
          tool_choice: "auto",
          tools: [],
          ...(diagnostics === undefined ? {} : { prompt_cache_diagnostics: diagnostics }),
        }),
      );
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A Responses API usage object: `input` uncached tokens plus `cached` cache reads. */
export const responsesUsage = (input, cached, output = 40) => ({
  input_tokens: input + cached,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + cached + output,
});

export const functionCall = (callId, name, args) => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
  status: "completed",
});

export const message = (text) => ({
  type: "message",
  id: `msg_${text.length}`,
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});
