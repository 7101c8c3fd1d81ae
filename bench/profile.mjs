// `node bench/profile.mjs [gate|healthz|echo] [--in-process] [--with-limiter] [--with-ledger]`: CPU-profiles
// the worker's isolate in workerd (V8 inspector on 127.0.0.1) under 5 s of
// saturating load, and prints busy time per request by source (the
// project's files one by one, each dependency, the runtime's native code),
// then the functions by their own time and by their time with what they
// call. `--in-process` serves 20,000 requests inside the isolate instead
// (GET /__bench/loop, no sockets): the same attribution without the HTTP
// server's share. It explains the benchmark's ratios; it is not part of `npm run bench`.
import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { bundle } from "../build/bundle.mjs";
import { startWorker } from "../build/workerd.mjs";

const route = process.argv[2] ?? "gate";
// BENCH_PORT_BASE moves the ports, as it does for bench/http.mjs.
const PORT_BASE = Number(process.env.BENCH_PORT_BASE ?? 8820);
const INSPECTOR_PORT = PORT_BASE + 5;
const REQUESTS = {
  gate: {
    method: "POST",
    path: "/v1/gate",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model_name: "gpt-5", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 }),
  },
  healthz: { method: "GET", path: "/healthz" },
  // The floor: a POST that reads the same body and answers 680 bytes of JSON (bench/worker-entry.ts).
  echo: {
    method: "POST",
    path: "/__bench/echo",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model_name: "gpt-5", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 }),
  },
};

// The bench entry: the app as deployed, plus the echo route.
const scriptPath = await bundle("bench/worker-entry.ts", "profile");
// As `npm run bench` measures the gate: without the rate-limit binding and the ledger unless asked.
const worker = await startWorker({
  scriptPath,
  port: PORT_BASE + 4,
  inspectorPort: INSPECTOR_PORT,
  rateLimits: process.argv.includes("--with-limiter"),
  ledger: process.argv.includes("--with-ledger"),
});
const load = (seconds) =>
  new Promise((resolve, reject) =>
    autocannon({ url: worker.base, connections: 8, duration: seconds, requests: [REQUESTS[route]] }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );

try {
  const targets = await (await fetch(`http://127.0.0.1:${INSPECTOR_PORT}/json/list`)).json();
  // miniflare names the user's worker "core:user:<name>".
  const target = targets.find((candidate) => candidate.title.includes("core:user"));
  const socket = new WebSocket(target.webSocketDebuggerUrl);
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

  const inProcess = process.argv.includes("--in-process");
  const loop = async (n) => {
    await (await fetch(`${worker.base}/__bench/loop?route=${route}&n=${n}`)).arrayBuffer();
    return { requests: { total: n }, duration: 1 };
  };
  await (inProcess ? loop(3_000) : load(2));
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  const result = await (inProcess ? loop(20_000) : load(5));
  const { profile } = (await send("Profiler.stop")).result;
  socket.close();

  // esbuild marks each bundled file with a `// path` line: map lines to their source.
  const marks = [];
  readFileSync(scriptPath, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const path = /^\/\/ (\S+)$/.exec(line)?.[1];
      if (path === undefined) return;
      const parts = path.replace(/^node_modules\//, "").split("/");
      marks.push([
        index,
        path.startsWith("src/") ? path : parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0],
      ]);
    });
  const sourceOf = (line) => marks.findLast(([start]) => start <= line)?.[1] ?? "?";
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
  const sourceOfFrame = ({ functionName, url, lineNumber }) =>
    url.endsWith("profile.mjs")
      ? sourceOf(lineNumber)
      : url
        ? `another script (${url})`
        : functionName.startsWith("(")
          ? functionName
          : "native (runtime)";
  const labelOf = (frame) => `${sourceOfFrame(frame)} ${frame.functionName || "(anonymous)"}:${frame.lineNumber + 1}`;
  const bySource = new Map();
  const byFunction = new Map();
  const withCallees = new Map();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const { callFrame } = nodes.get(id);
    if (callFrame.functionName === "(idle)") return;
    const delta = profile.timeDeltas[i] ?? 0;
    busy += delta;
    const source = sourceOfFrame(callFrame);
    bySource.set(source, (bySource.get(source) ?? 0) + delta);
    byFunction.set(labelOf(callFrame), (byFunction.get(labelOf(callFrame)) ?? 0) + delta);
    // Each function on the stack once, however often it recurs.
    const seen = new Set();
    for (let node = id; node !== undefined; node = parentOf.get(node)) seen.add(labelOf(nodes.get(node).callFrame));
    for (const label of seen) withCallees.set(label, (withCallees.get(label) ?? 0) + delta);
  });
  const requests = result.requests.total;
  const pace = inProcess ? `${requests} requests in process` : `${Math.round(requests / result.duration)} req/s`;
  console.log(
    `${route}: ${pace}; isolate busy ${(busy / requests).toFixed(1)} µs per request (the profiler's own overhead included)`,
  );
  for (const [source, micros] of [...bySource].sort((a, b) => b[1] - a[1])) {
    console.log(
      `  ${(micros / requests).toFixed(1).padStart(7)} µs  ${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${source}`,
    );
  }
  console.log("top functions, own time:");
  for (const [fn, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(`  ${(micros / requests).toFixed(1).padStart(7)} µs  ${fn}`);
  }
  console.log("top functions, with what they call:");
  for (const [fn, micros] of [...withCallees].sort((a, b) => b[1] - a[1]).slice(1, 31)) {
    console.log(`  ${(micros / requests).toFixed(1).padStart(7)} µs  ${fn}`);
  }
} finally {
  await worker.stop();
}
