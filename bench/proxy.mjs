// `npm run bench:proxy`: the proxy's overhead, side by side in one run.
// A mock Anthropic provider on 127.0.0.1 answers a 200-turn session whose
// every turn adds a 100 KB tool result (so the last request is 20 MB); each
// turn is sent twice in a row, straight to the mock and through the worker's
// /proxy/anthropic/ (the built worker in workerd, the proxy observing as in
// production), alternating which goes first so drift cancels out. Time to
// first byte and total time, p50 and p99, streamed and not. Then, side by
// side, a recall resolved in the proxy (enforce mode: the model's recall
// call answered by the proxy, one request for the client) against the same
// recall made by a client (the stub sent straight to the mock, the recall
// call answered by the client in a second request). Loopback only.
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundle, ROOT } from "../build/bundle.mjs";
import { startWorker } from "../build/workerd.mjs";

const PORT = Number(process.env.BENCH_PORT_BASE ?? 8820) + 30;
const MOCK_PORT = PORT + 1;
const TURNS = Number(process.env.BENCH_PROXY_TURNS ?? 200);
const TOOL_BYTES = Number(process.env.BENCH_PROXY_TOOL_BYTES ?? 100_000);
const GATE_KEY = "bench-proxy-key-9f8e7d6c5b4a";
const ENFORCE_KEY = "bench-enforce-key-1a2b3c4d5e6f";
const RECALLS = Number(process.env.BENCH_PROXY_RECALLS ?? 40);
const MODEL = "claude-sonnet-4-5";

// The answer: a short message, or the same as server-sent events, with usage.
const USAGE = { input_tokens: 20, output_tokens: 12, cache_read_input_tokens: 1_000, cache_creation_input_tokens: 100 };
const MESSAGE = JSON.stringify({
  id: "msg_bench",
  type: "message",
  role: "assistant",
  model: MODEL,
  content: [{ type: "text", text: "done" }],
  stop_reason: "end_turn",
  usage: USAGE,
});
const EVENTS = [
  [
    "message_start",
    {
      type: "message_start",
      message: { id: "msg_bench", type: "message", role: "assistant", model: MODEL, content: [], usage: USAGE },
    },
  ],
  ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
  ...Array.from({ length: 20 }, (_, i) => [
    "content_block_delta",
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `word${i} ` } },
  ]),
  ["content_block_stop", { type: "content_block_stop", index: 0 }],
  ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 12 } }],
  ["message_stop", { type: "message_stop" }],
]
  .map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  .join("");

// How many recall calls the mock has answered with: each side's run must have made its own.
let recallCalls = 0;

// The recall scenario's model: reads when asked, recalls what it finds stubbed, answers once it has the original.
function recallAnswer(body) {
  const { messages } = JSON.parse(body);
  const last = messages[messages.length - 1];
  const result = Array.isArray(last.content) ? last.content.find((block) => block.type === "tool_result") : undefined;
  const reply = (content, stop) =>
    JSON.stringify({
      id: "msg_r",
      type: "message",
      role: "assistant",
      model: MODEL,
      content,
      stop_reason: stop,
      usage: USAGE,
    });
  if (result === undefined)
    return reply([{ type: "tool_use", id: "toolu_big", name: "Read", input: { file_path: "big.txt" } }], "tool_use");
  if (typeof result.content === "string" && result.content.startsWith("[offloaded:")) {
    recallCalls += 1;
    return reply(
      [{ type: "tool_use", id: "toolu_recall", name: "recall_tool_output", input: { id: result.tool_use_id } }],
      "tool_use",
    );
  }
  return reply([{ type: "text", text: "done" }], "end_turn");
}

function mockProvider() {
  const server = createServer((req, res) => {
    if (req.headers["x-bench-scenario"] === "recall") {
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(recallAnswer(Buffer.concat(chunks).toString("utf8")));
      });
      return;
    }
    let size = 0;
    let streamed = false;
    let head = "";
    req.on("data", (chunk) => {
      if (head.length < 200) head += chunk.toString("utf8", 0, Math.min(chunk.length, 200));
      size += chunk.length;
    });
    req.on("end", () => {
      streamed = head.includes('"stream":true');
      if (streamed) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(EVENTS);
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(MESSAGE);
      }
      void size;
    });
  });
  return new Promise((resolve) => server.listen(MOCK_PORT, "127.0.0.1", () => resolve(server)));
}

/** The session's turn `k` (1-based): k tool calls and their 100 KB results so far. */
function* session(stream) {
  const line = "x".repeat(79);
  const messages = [JSON.stringify({ role: "user", content: "Read the files and summarize them." })];
  for (let k = 1; k <= TURNS; k++) {
    const text = Array.from({ length: Math.ceil(TOOL_BYTES / 80) }, (_, i) => `${k}:${i} ${line}`.slice(0, 79)).join(
      "\n",
    );
    messages.push(
      JSON.stringify({
        role: "assistant",
        content: [{ type: "tool_use", id: `toolu_${k}`, name: "Read", input: { file_path: `f${k}.txt` } }],
      }),
      JSON.stringify({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${k}`, content: text }] }),
    );
    yield `{"stream":${stream},"model":"${MODEL}","max_tokens":64,"metadata":{"user_id":"bench_session_${stream}"},"messages":[${messages.join(",")}]}`;
  }
}

/** One request: time to the first byte of the body, and to its end, in ms. */
async function timed(url, body, headers) {
  const started = performance.now();
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const reader = res.body.getReader();
  let first = null;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (first === null) first = performance.now() - started;
    if (done) break;
    bytes += value.byteLength;
  }
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return { ttfb: first, total: performance.now() - started, bytes };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const round = (n) => Number(n.toFixed(2));

async function run(base, stream) {
  const direct = { ttfb: [], total: [] };
  const proxied = { ttfb: [], total: [] };
  let turn = 0;
  for (const body of session(stream)) {
    const send = {
      direct: () => timed(`http://127.0.0.1:${MOCK_PORT}/v1/messages`, body, { "x-api-key": "sk-bench" }),
      proxied: () =>
        timed(`${base}/proxy/anthropic/v1/messages`, body, { "x-api-key": "sk-bench", "x-offload-gate-key": GATE_KEY }),
    };
    const order = turn++ % 2 === 0 ? ["direct", "proxied"] : ["proxied", "direct"];
    for (const name of order) {
      const t = await send[name]();
      const into = name === "direct" ? direct : proxied;
      into.ttfb.push(t.ttfb);
      into.total.push(t.total);
    }
  }
  const figures = {};
  for (const metric of ["ttfb", "total"]) {
    for (const p of [50, 99]) {
      const d = percentile(direct[metric], p);
      const x = percentile(proxied[metric], p);
      const allowed = Math.max(0.1 * d, 5);
      figures[`${metric}_p${p}`] = {
        direct_ms: round(d),
        proxy_ms: round(x),
        added_ms: round(x - d),
        allowed_ms: round(allowed),
        met: x - d <= allowed,
      };
    }
  }
  return figures;
}

/**
 * A recall resolved in the proxy against the same recall made by a client:
 * per session, the request that sends a 100 KB tool result for the first
 * time. Through the enforcing proxy it is one client request (the proxy
 * stubs it, the model recalls, the proxy answers and asks again); made by a
 * client, it is the stubbed request straight to the mock, then a second
 * request with the recall's answer appended. Total time to the final answer.
 */
async function runRecall(base) {
  const text = Array.from({ length: Math.ceil(TOOL_BYTES / 80) }, (_, i) => `${i} ${"y".repeat(75)}`).join("\n");
  const stub = `[offloaded: the output of Read call toolu_big (${text.length.toLocaleString("en-US")} chars) is not shown; call recall_tool_output with {"id":"toolu_big"} to read it]`;
  const ask = { role: "user", content: "Read big.txt." };
  const call = {
    role: "assistant",
    content: [{ type: "tool_use", id: "toolu_big", name: "Read", input: { file_path: "big.txt" } }],
  };
  const result = (content) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_big", content }] });
  const body = (session, messages) =>
    JSON.stringify({ model: MODEL, max_tokens: 64, metadata: { user_id: session }, messages });
  const proxied = [];
  const client = [];
  const headers = { "x-api-key": "sk-bench", "x-bench-scenario": "recall" };
  for (let i = 0; i < RECALLS; i++) {
    const session = `bench_recall_${i}_${Date.now()}`;
    const through = { ...headers, "x-offload-gate-key": ENFORCE_KEY };
    const url = `${base}/proxy/anthropic/v1/messages`;
    // The session's first request (seen from its start, so it is enforced), then the one that sends the output.
    await timed(url, body(session, [ask]), through);
    const before = recallCalls;
    const viaProxy = await timed(url, body(session, [ask, call, result(text)]), through);
    if (recallCalls !== before + 1)
      throw new Error("the proxy did not stub the output, so the model never recalled it");
    const direct = `http://127.0.0.1:${MOCK_PORT}/v1/messages`;
    const started = performance.now();
    const answered = await fetch(direct, { method: "POST", headers, body: body(session, [ask, call, result(stub)]) });
    const recall = JSON.parse(await answered.text());
    if (recall.content[0]?.name !== "recall_tool_output") throw new Error("the mock did not recall");
    const recallResult = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_recall", content: text }],
    };
    const messages = [ask, call, result(stub), { role: "assistant", content: recall.content }, recallResult];
    await timed(direct, body(session, messages), headers);
    client.push(performance.now() - started);
    proxied.push(viaProxy.total);
  }
  const figures = {};
  for (const p of [50, 99])
    figures[`total_p${p}`] = {
      client_recall_ms: round(percentile(client, p)),
      proxy_recall_ms: round(percentile(proxied, p)),
      added_ms: round(percentile(proxied, p) - percentile(client, p)),
    };
  return figures;
}

const mock = await mockProvider();
const scriptPath = await bundle("src/index.ts", "proxy-bench");
const worker = await startWorker({
  scriptPath,
  port: PORT,
  rateLimits: false,
  ledger: true,
  // The recall rows' tenant enforces (config:gate's proxy_modes); the overhead rows' tenant observes.
  config: { proxy_modes: { "bench-enforce": "enforce" } },
  bindings: {
    ANTHROPIC_UPSTREAM: `http://127.0.0.1:${MOCK_PORT}`,
    GATE_API_KEYS: `bench:${GATE_KEY},bench-enforce:${ENFORCE_KEY}`,
  },
});
try {
  console.log(
    `proxy bench: ${TURNS} turns, ${TOOL_BYTES} B tool results, worker at ${worker.base}, mock at 127.0.0.1:${MOCK_PORT}`,
  );
  const results = { turns: TURNS, tool_result_bytes: TOOL_BYTES };
  for (const stream of [false, true]) {
    results[stream ? "streamed" : "not_streamed"] = await run(worker.base, stream);
    console.log(stream ? "streamed" : "not streamed");
    console.table(results[stream ? "streamed" : "not_streamed"]);
  }
  results.recall = await runRecall(worker.base);
  console.log(`a recall: resolved in the proxy against made by a client (${RECALLS} sessions)`);
  console.table(results.recall);
  writeFileSync(join(ROOT, "bench", "proxy-results.json"), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await worker.stop();
  mock.close();
}
