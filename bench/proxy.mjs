// `npm run bench:proxy`: the proxy's overhead, side by side in one run.
// A mock Anthropic provider on 127.0.0.1 answers a 100-turn session (200 with BENCH_PROXY_TURNS) whose
// every turn adds a 100 KB tool result (so the last request is 10 MB, or 20); each
// turn is sent three times in a row: straight to the mock, through the worker's
// /proxy/anthropic/ (the built worker in workerd, the proxy observing as in
// production), and through the floor (bench/proxy-floor-entry.mjs: a bare
// Worker's one fetch, in workerd too), rotating which goes first so drift
// cancels out. Between turns it pauses (BENCH_PROXY_PAUSE_MS, default 100),
// as an agent does while the model answers and the tool runs; 0 sends the
// turns back to back. Time to first byte and total time, p50 and p99,
// streamed and not. Then, side by side, a recall resolved in the proxy
// (enforce mode: the model's recall call answered by the proxy, one request
// for the client) against the same recall made by a client (the stub sent
// straight to the mock, the recall call answered by the client in a second
// request). Loopback only.
import { createServer } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundle, ROOT } from "../build/bundle.mjs";
import { startWorker } from "../build/workerd.mjs";

const PORT = Number(process.env.BENCH_PORT_BASE ?? 8820) + 30;
const MOCK_PORT = PORT + 1;
const FLOOR_PORT = PORT + 3;
const PAUSE_MS = Number(process.env.BENCH_PROXY_PAUSE_MS ?? 100);
// 100 turns keep a run near a minute and a half; BENCH_PROXY_TURNS=200 is the whole session (about 5 minutes).
const TURNS = Number(process.env.BENCH_PROXY_TURNS ?? 100);
const TOOL_BYTES = Number(process.env.BENCH_PROXY_TOOL_BYTES ?? 100_000);
const GATE_KEY = "bench-proxy-key-9f8e7d6c5b4a";
const ENFORCE_KEY = "bench-enforce-key-1a2b3c4d5e6f";
const RECALLS = Number(process.env.BENCH_PROXY_RECALLS ?? 40);
// BENCH_PROXY_PROFILE=1 samples the worker's isolate (V8 inspector on 127.0.0.1) through the run and
// prints where its time went, by function: the breakdown docs/performance/proxy.md reports.
const PROFILE = process.env.BENCH_PROXY_PROFILE === "1";
const INSPECTOR_PORT = PORT + 2;
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

// When the mock had each request's whole body, by the bench's request id: the upload's share of the time.
const arrivals = new Map();
// Which requests reached the mock without a declared length (chunked): the client always declares one,
// so a chunked arrival is framing an arm changed on the way.
const chunked = new Set();

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
    let head = "";
    req.on("data", (chunk) => {
      if (head.length < 200) head += chunk.toString("utf8", 0, Math.min(chunk.length, 200));
    });
    req.on("end", () => {
      arrivals.set(req.headers["x-bench-request"], performance.now());
      if (req.headers["content-length"] === undefined) chunked.add(req.headers["x-bench-request"]);
      if (head.includes('"stream":true')) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(EVENTS);
      } else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(MESSAGE);
      }
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

let requestId = 0;

/** One request: time to the first byte of the body, and to its end, and when the mock had the whole body, in ms. */
async function timed(url, body, headers) {
  const id = String(++requestId);
  const started = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-bench-request": id, ...headers },
    body,
  });
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
  const upload = arrivals.get(id) - started;
  arrivals.delete(id);
  const framedAsSent = !chunked.delete(id);
  return { ttfb: first, total: performance.now() - started, upload, bytes, framedAsSent };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const round = (n) => Number(n.toFixed(2));

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const ORDERS = [
  ["direct", "floor", "proxied"],
  ["proxied", "direct", "floor"],
  ["floor", "proxied", "direct"],
];

async function run(base, floorBase, stream) {
  const arm = () => ({ ttfb: [], total: [], upload: [], back: [], chunked: 0 });
  const times = { direct: arm(), floor: arm(), proxied: arm() };
  let turn = 0;
  for (const body of session(stream)) {
    const send = {
      direct: () => timed(`http://127.0.0.1:${MOCK_PORT}/v1/messages`, body, { "x-api-key": "sk-bench" }),
      floor: () => timed(`${floorBase}/floor/v1/messages`, body, { "x-api-key": "sk-bench" }),
      proxied: () =>
        timed(`${base}/proxy/anthropic/v1/messages`, body, { "x-api-key": "sk-bench", "x-offload-gate-key": GATE_KEY }),
    };
    for (const name of ORDERS[turn++ % ORDERS.length]) {
      const t = await send[name]();
      times[name].ttfb.push(t.ttfb);
      times[name].total.push(t.total);
      times[name].upload.push(t.upload);
      // From the mock's having the whole request to the client's first byte of the answer.
      times[name].back.push(t.ttfb - t.upload);
      if (!t.framedAsSent) times[name].chunked++;
    }
    if (PAUSE_MS > 0) await pause(PAUSE_MS);
  }
  const figures = {};
  for (const metric of ["ttfb", "total"]) {
    for (const p of [50, 99]) {
      const d = percentile(times.direct[metric], p);
      const f = percentile(times.floor[metric], p);
      const x = percentile(times.proxied[metric], p);
      const allowed = Math.max(0.1 * d, 5);
      figures[`${metric}_p${p}`] = {
        direct_ms: round(d),
        floor_ms: round(f),
        proxy_ms: round(x),
        added_ms: round(x - d),
        allowed_ms: round(allowed),
        met: x - d <= allowed,
        // What the proxy adds over the least any Worker adds (the floor), against the same allowance.
        over_floor_ms: round(x - f),
        met_over_floor: x - f <= allowed,
      };
    }
  }
  // Where the time goes, p50 of each leg: the request's way to the provider, the answer's way back.
  const breakdown = {};
  for (const name of ["direct", "floor", "proxied"])
    breakdown[name] = {
      upload_p50_ms: round(percentile(times[name].upload, 50)),
      answer_p50_ms: round(percentile(times[name].back, 50)),
      reframed_chunked: times[name].chunked,
    };
  return { figures, breakdown };
}

/** Starts the V8 profiler in the worker's isolate; `stop` returns the profile. */
async function startProfile() {
  const targets = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json();
  // miniflare names the user's worker "core:user:<name>".
  const socket = new WebSocket(targets.find((t) => t.title.includes("core:user")).webSocketDebuggerUrl);
  await new Promise((resolve) => socket.addEventListener("open", resolve));
  let nextId = 0;
  const pending = new Map();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 200 });
  await send("Profiler.start");
  return {
    stop: async () => {
      const { profile } = (await send("Profiler.stop")).result;
      socket.close();
      return profile;
    },
  };
}

/** The isolate's busy time by function, own and with what it calls (the worker's bundle marks each file). */
function printProfile(profile, bundlePath) {
  const marks = [];
  readFileSync(bundlePath, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const path = /^\/\/ (\S+)$/.exec(line)?.[1];
      if (path !== undefined) marks.push([index, path]);
    });
  const fileOf = (line) => marks.findLast(([start]) => start <= line)?.[1] ?? "?";
  const label = ({ functionName, url, lineNumber }) =>
    url ? `${fileOf(lineNumber)} ${functionName || "(anonymous)"}` : functionName || "native (runtime)";
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
  const own = new Map();
  const total = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === "(idle)" || frame.functionName === "(program)") return;
    const delta = profile.timeDeltas[i] ?? 0;
    busy += delta;
    own.set(label(frame), (own.get(label(frame)) ?? 0) + delta);
    const seen = new Set();
    for (let node = id; node !== undefined; node = parentOf.get(node)) seen.add(label(nodes.get(node).callFrame));
    for (const name of seen) total.set(name, (total.get(name) ?? 0) + delta);
  });
  const ms = (micros) => (micros / 1000).toFixed(0).padStart(7);
  console.log(`isolate busy (JavaScript and the runtime's calls from it): ${ms(busy)} ms over the run`);
  console.log("own time:");
  for (const [name, micros] of [...own].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`  ${ms(micros)} ms  ${name}`);
  console.log("with what they call:");
  for (const [name, micros] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${ms(micros)} ms  ${name}`);
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
  ...(PROFILE ? { inspectorPort: INSPECTOR_PORT } : {}),
  // The recall rows' tenant enforces (config:gate's proxy_modes); the overhead rows' tenant observes.
  config: { proxy_modes: { "bench-enforce": "enforce" } },
  bindings: {
    ANTHROPIC_UPSTREAM: `http://127.0.0.1:${MOCK_PORT}`,
    GATE_API_KEYS: `bench:${GATE_KEY},bench-enforce:${ENFORCE_KEY}`,
  },
});
const floor = await startWorker({
  scriptPath: join(ROOT, "bench", "proxy-floor-entry.mjs"),
  port: FLOOR_PORT,
  rateLimits: false,
  ledger: false,
  bindings: { ANTHROPIC_UPSTREAM: `http://127.0.0.1:${MOCK_PORT}` },
});
try {
  console.log(
    `proxy bench: ${TURNS} turns, ${TOOL_BYTES} B tool results, ${PAUSE_MS} ms between turns, worker at ${worker.base}, floor at ${floor.base}, mock at 127.0.0.1:${MOCK_PORT}`,
  );
  const started = performance.now();
  const results = { turns: TURNS, tool_result_bytes: TOOL_BYTES, pause_ms: PAUSE_MS };
  const profiler = PROFILE ? await startProfile() : null;
  for (const stream of [false, true]) {
    const { figures, breakdown } = await run(worker.base, floor.base, stream);
    results[stream ? "streamed" : "not_streamed"] = figures;
    results[stream ? "streamed_breakdown" : "not_streamed_breakdown"] = breakdown;
    console.log(stream ? "streamed" : "not streamed");
    console.table(figures);
    console.table(breakdown);
  }
  results.recall = await runRecall(worker.base);
  console.log(`a recall: resolved in the proxy against made by a client (${RECALLS} sessions)`);
  console.table(results.recall);
  results.seconds = round((performance.now() - started) / 1000);
  console.log(`${results.seconds} s`);
  if (profiler !== null) printProfile(await profiler.stop(), scriptPath);
  writeFileSync(join(ROOT, "bench", "proxy-results.json"), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await worker.stop();
  await floor.stop();
  mock.close();
}
