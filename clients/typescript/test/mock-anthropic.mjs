// A mock Anthropic Messages API on loopback, for the Claude Agent SDK's own
// loop (ANTHROPIC_BASE_URL): each POST /v1/messages is answered by `respond`
// (the parsed request in, { content, usage } out), streamed as the API
// streams when asked to, with `diagnostics` on the message when the script
// gives them; every request is kept for the test to read. Any
// other path answers an empty 200 JSON object.
import { createServer } from "node:http";

/** Starts the mock; resolves to { url, requests, close }. */
export async function startMockAnthropic(respond) {
  const requests = [];
  let n = 0;
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    if (
      req.method !== "POST" ||
      !req.url.startsWith("/v1/messages") ||
      req.url.startsWith("/v1/messages/count_tokens")
    ) {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(req.url.startsWith("/v1/messages/count_tokens") ? JSON.stringify({ input_tokens: 1000 }) : "{}");
      return;
    }
    const body = JSON.parse(raw || "{}");
    requests.push(body);
    n += 1;
    const { content, usage, diagnostics } = await respond(body, requests.length - 1, req.headers);
    const stop = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
    const message = {
      id: `msg_mock_${n}`,
      type: "message",
      role: "assistant",
      model: body.model,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage,
      // Cache diagnostics, when the script answers them (asked with `diagnostics` and the beta header).
      ...(diagnostics === undefined ? {} : { diagnostics }),
    };
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json", "request-id": `req_${n}` }).end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "request-id": `req_${n}` });
    const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    send("message_start", {
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    });
    content.forEach((block, index) => {
      if (block.type === "text") {
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
        send("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
      } else {
        send("content_block_start", { index, content_block: { ...block, input: {} } });
        send("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        });
      }
      send("content_block_stop", { index });
    });
    send("message_delta", {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    send("message_stop", {});
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Every tool_result block of a request, with its text (Claude Code's system reminders taken off). */
export function toolResults(request) {
  return request.messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === "tool_result")
    .map((b) => ({
      id: b.tool_use_id,
      text: (typeof b.content === "string"
        ? b.content
        : (b.content ?? [])
            .filter((c) => c.type === "text")
            .map((c) => c.text)
            .join("\n")
      ).replace(/(\n\n<system-reminder>[\s\S]*?<\/system-reminder>)+$/, ""),
    }));
}
