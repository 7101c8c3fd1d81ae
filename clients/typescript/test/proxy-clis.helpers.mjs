// What the real CLIs' proxy tests share (proxy-clis.live.test.mjs): a mock
// provider on loopback that speaks Anthropic's Messages API and OpenAI's
// Responses API, streamed, and keeps every request's and answer's exact
// bytes; a recording relay between the CLI and the local gate, which keeps
// what the CLI sent and what it got back; a catch-all that a CLI's
// HTTP(S)_PROXY points at, so any request for a host other than loopback is
// seen (and refused); and the bill of a session at the seed's rates.
import { readFileSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

const REPO = new URL("../../../", import.meta.url).pathname;

const listen = (server, port = 0) =>
  new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server.address().port));
  });

const close = (server) =>
  new Promise((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  });

async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A server-sent event as the providers write it. */
const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** An Anthropic Messages answer (content blocks and usage) as its stream of events. */
function anthropicEvents(message) {
  const { content, usage } = message;
  let out = event("message_start", {
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  content.forEach((block, index) => {
    if (block.type === "text") {
      out += event("content_block_start", { index, content_block: { type: "text", text: "" } });
      out += event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      out += event("content_block_start", { index, content_block: { ...block, input: {} } });
      out += event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    out += event("content_block_stop", { index });
  });
  out += event("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  return out + event("message_stop", {});
}

/** An OpenAI Responses answer (output items and usage) as its stream of events. */
function responsesEvents(response) {
  let out = event("response.created", { response: { ...response, status: "in_progress", output: [], usage: null } });
  response.output.forEach((item, output_index) => {
    out += event("response.output_item.added", { output_index, item });
    out += event("response.output_item.done", { output_index, item });
  });
  return out + event("response.completed", { response });
}

/**
 * The mock provider: `/anthropic/v1/messages` answered by `script.anthropic(body, headers)`
 * ({ content, usage }), `/openai/v1/responses` by `script.openai(body, headers)` ({ output, usage }),
 * streamed when the request asks; `/anthropic/v1/messages/count_tokens` answers a count. Every
 * request is kept whole ({ method, path, headers, bytes, body, usage, answer }), the answer's bytes too;
 * any other path is kept and answered 404.
 *
 * @example
 * const provider = await mockProvider(port, { anthropic: () => ({ content: [{ type: "text", text: "hi" }], usage }) });
 * provider.requests[0].bytes; // the exact bytes the proxy sent upstream
 */
export async function mockProvider(port, script) {
  const requests = [];
  let n = 0;
  const server = createServer(async (req, res) => {
    const bytes = await readAll(req);
    const path = new URL(req.url, "http://x").pathname;
    const kept = {
      method: req.method,
      path,
      url: req.url,
      headers: req.headers,
      bytes,
      body: null,
      usage: null,
      answer: null,
    };
    requests.push(kept);
    const answer = (status, type, text) => {
      kept.answer = Buffer.from(text, "utf8");
      res.writeHead(status, { "content-type": type, "request-id": `req_mock_${n}` }).end(kept.answer);
    };
    try {
      if (req.method === "POST" && path === "/anthropic/v1/messages/count_tokens")
        return answer(200, "application/json", JSON.stringify({ input_tokens: 1_000 }));
      if (req.method === "POST" && path === "/anthropic/v1/messages" && script.anthropic) {
        kept.body = JSON.parse(bytes.toString("utf8"));
        n += 1;
        const { content, usage } = await script.anthropic(kept.body, req.headers);
        kept.usage = usage;
        const message = {
          id: `msg_mock_${n}`,
          type: "message",
          role: "assistant",
          model: kept.body.model,
          content,
          stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage,
        };
        return kept.body.stream
          ? answer(200, "text/event-stream", anthropicEvents(message))
          : answer(200, "application/json", JSON.stringify(message));
      }
      if (req.method === "POST" && path === "/openai/v1/responses" && script.openai) {
        kept.body = JSON.parse(bytes.toString("utf8"));
        n += 1;
        const { output, usage } = await script.openai(kept.body, req.headers);
        kept.usage = usage;
        const response = {
          id: `resp_mock_${n}`,
          object: "response",
          created_at: Math.floor(Date.now() / 1000),
          status: "completed",
          model: kept.body.model,
          output,
          usage,
        };
        return kept.body.stream
          ? answer(200, "text/event-stream", responsesEvents(response))
          : answer(200, "application/json", JSON.stringify(response));
      }
      return answer(404, "application/json", JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
    } catch (error) {
      return answer(500, "application/json", JSON.stringify({ error: { message: String(error) } }));
    }
  });
  await listen(server, port);
  return { url: `http://127.0.0.1:${port}`, requests, close: () => close(server) };
}

/**
 * A relay on loopback in front of the gate: what a CLI believes is the gate. It passes each
 * request on as it came and the answer back as it comes (streamed), and keeps both sides' bytes
 * ({ method, path, headers, bytes, status, answerHeaders, answer }).
 *
 * @example
 * const relay = await recordingRelay("http://127.0.0.1:8880");
 * // point the CLI at `${relay.url}/proxy/anthropic`; relay.exchanges holds what it sent and got
 */
export async function recordingRelay(target) {
  const exchanges = [];
  const pending = new Set();
  const to = new URL(target);
  const server = createServer(async (req, res) => {
    let finished;
    const done = new Promise((resolve) => (finished = resolve));
    pending.add(done);
    const kept = {
      method: req.method,
      path: req.url,
      headers: req.headers,
      bytes: Buffer.alloc(0),
      status: 0,
      answerHeaders: null,
      answer: null,
    };
    exchanges.push(kept);
    kept.bytes = await readAll(req);
    const upstream = httpRequest(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
      },
      (answer) => {
        kept.status = answer.statusCode;
        kept.answerHeaders = answer.headers;
        res.writeHead(answer.statusCode, answer.headers);
        const chunks = [];
        answer.on("data", (chunk) => {
          chunks.push(chunk);
          res.write(chunk);
        });
        answer.on("end", () => {
          kept.answer = Buffer.concat(chunks);
          res.end();
          finished();
        });
        answer.on("error", () => finished());
      },
    );
    upstream.on("error", (error) => {
      kept.status = 599;
      res.writeHead(502).end(String(error));
      finished();
    });
    upstream.end(kept.bytes);
    await done;
    pending.delete(done);
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    /** Waits (10 s at most) for the answers still streaming (a CLI may exit on an answer's last event, before its end), then closes. */
    close: async () => {
      await Promise.race([Promise.all([...pending]), delay(10_000)]);
      await close(server);
    },
  };
}

/**
 * Where a CLI's HTTP_PROXY and HTTPS_PROXY point: every request for a host that is not loopback
 * lands here (a CONNECT for https), is kept in `seen`, and is refused. NO_PROXY keeps loopback direct.
 *
 * @example
 * const elsewhere = await catchAll();
 * // env: { HTTPS_PROXY: elsewhere.url, HTTP_PROXY: elsewhere.url, NO_PROXY: "127.0.0.1,localhost" }
 * assert.deepEqual(elsewhere.seen, []);
 */
export async function catchAll() {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.socket.on("error", () => {});
    res.writeHead(403).end();
  });
  server.on("connect", (req, socket) => {
    seen.push(`CONNECT ${req.url}`);
    // A client may drop the refused tunnel first: its reset is the client's, not a fault here.
    socket.on("error", () => {});
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, seen, close: () => close(server) };
}

/**
 * An answer's body as the CLI reads it: the Workers runtime compresses a compressible answer (JSON,
 * not an event stream) for a client that accepts it, a transfer encoding of the runtime's own that
 * the client's HTTP library undoes.
 *
 * @example
 * assert.ok(mockAnswer.equals(decoded(relayed)));
 */
export function decoded({ headers, answer }) {
  const encoding = headers?.["content-encoding"];
  if (encoding === "gzip") return gunzipSync(answer);
  if (encoding === "br") return brotliDecompressSync(answer);
  if (encoding === undefined || encoding === "identity") return answer;
  throw new Error(`an answer encoded as ${encoding}, which this test does not read`);
}

/** The headers that are the connection's, not the request's: a relay or a proxy may change them. */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "host", "te", "upgrade", "proxy-connection"]);

/**
 * The headers the provider must see as the client sent them: all but the connection's own, the
 * gate's (`x-offload-gate-key`, `x-offload-session-id`) and what the local runtime adds (`cf-*`,
 * `x-forwarded-*`, `x-real-ip`), and `accept-encoding`, which the runtime's fetch sets itself.
 *
 * @example
 * assert.deepEqual(endToEndHeaders(mock.headers), endToEndHeaders(relayed.headers));
 */
export function endToEndHeaders(headers) {
  return Object.fromEntries(
    Object.entries(headers)
      .filter(
        ([name]) =>
          !HOP.has(name) &&
          !name.startsWith("x-offload-") &&
          !name.startsWith("cf-") &&
          !name.startsWith("x-forwarded-") &&
          name !== "x-real-ip" &&
          // The Workers runtime's fetch negotiates the upstream's compression itself ("br, gzip") and
          // hands the client the body decoded, whatever the client asked: the connection's, not the request's.
          name !== "accept-encoding",
      )
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** The seed's row of a model (pricing.seed.json), $ per million tokens: the bill is checked against it. */
export function seedRow(model) {
  const row = JSON.parse(readFileSync(`${REPO}pricing.seed.json`, "utf8")).models[model];
  if (row === undefined) throw new Error(`pricing.seed.json has no row for ${model}`);
  return row;
}

/**
 * A session's bill from the usages the mock answered, in the providers' own fields, at the
 * seed's rates (1-hour writes at their own rate, else the 5-minute one; sizes stay under any
 * long-context tier). Anthropic: input, cache reads, 5-minute and 1-hour writes, output. OpenAI:
 * cached input as cache reads, the rest as input.
 *
 * @example
 * billOf("claude-opus-4-6", [{ input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }])
 */
export function billOf(model, usages) {
  const row = seedRow(model);
  let dollars = 0;
  for (const u of usages) {
    if (u.input_tokens_details !== undefined) {
      const cached = u.input_tokens_details.cached_tokens;
      dollars += (u.input_tokens - cached) * row.input + cached * row.cache_read + u.output_tokens * row.output;
    } else {
      const hour = u.cache_creation?.ephemeral_1h_input_tokens ?? 0;
      dollars +=
        u.input_tokens * row.input +
        u.output_tokens * row.output +
        u.cache_read_input_tokens * row.cache_read +
        (u.cache_creation_input_tokens - hour) * row.cache_write +
        hour * (row.cache_write_1h ?? row.cache_write);
    }
  }
  return dollars / 1e6;
}

/**
 * The savings report for one model's observed tool, asked until `ready(report)` holds (the proxy
 * reports a session once it has been idle for the local gate's PROXY_SESSION_IDLE_MS) or
 * `budgetMs` passes; the last report either way.
 */
export async function savingsWhen(baseUrl, apiKey, query, ready, budgetMs = 30_000) {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/savings?${new URLSearchParams(query)}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (!response.ok) throw new Error(`GET /v1/savings: HTTP ${response.status} ${await response.text()}`);
    const report = await response.json();
    if (ready(report) || Date.now() > deadline) return report;
    await delay(500);
  }
}
