// `npm run soak`: steady load on the gate, in workerd on 127.0.0.1, while a
// new price goes in every few seconds. Reports requests, errors, non-JSON
// bodies, how long any answer still carried the old price after an update,
// and workerd's memory at the start and the end. Not part of CI.
//
//   SOAK_SECONDS=60 SOAK_RATE=400 SOAK_UPDATE_SECONDS=5 SOAK_TTL_SECONDS=5 SOAK_WARMUP_SECONDS=60 \
//   SOAK_RATE_LIMITER=on npm run soak
//
// Bounded: autocannon stops after SOAK_SECONDS (at most 600), the update loop
// with it, and the worker is disposed; a watchdog ends the process if not.
import autocannon from "autocannon";
import { randomBytes } from "node:crypto";
import { bundle } from "../build/bundle.mjs";
import { rssMiB, startWorker, workerdPids } from "../build/workerd.mjs";

const PORT = 8821;
const MODEL = "claude-opus-4-6";
const seconds = Math.min(600, Number(process.env.SOAK_SECONDS ?? 60));
const rate = Number(process.env.SOAK_RATE ?? 400);
const updateEvery = Number(process.env.SOAK_UPDATE_SECONDS ?? 5);
const ttlSeconds = Number(process.env.SOAK_TTL_SECONDS ?? 5);
const warmupSeconds = Math.min(120, Number(process.env.SOAK_WARMUP_SECONDS ?? 60));
const connections = 8;

const watchdog = setTimeout(
  () => {
    console.error("soak: watchdog fired; stopping");
    process.exit(2);
  },
  (seconds + warmupSeconds + 120) * 1000,
);
watchdog.unref();

// A per-run token, never written anywhere: the admin API's.
const adminToken = randomBytes(24).toString("hex");
const scriptPath = await bundle("src/index.ts", "soak-worker");
const worker = await startWorker({
  scriptPath,
  port: PORT,
  config: { pricing_cache_ttl_seconds: ttlSeconds },
  bindings: { ADMIN_TOKEN: adminToken },
  // SOAK_RATE_LIMITER=off leaves the rate-limit binding out, to tell the
  // gate's memory apart from miniflare's simulated limiter (a Durable Object).
  rateLimits: process.env.SOAK_RATE_LIMITER !== "off",
});
const { base, kv, keys } = worker;
const baseRow = worker.seed.models[MODEL];
// Version v of the row prices input at base + v, so every answer names its version.
const rowOf = (version) => ({ ...baseRow, input: baseRow.input + version });
const versionOf = (input) => Math.round(input - baseRow.input);

// Updates alternate: through the admin API (the isolate that takes the write
// serves it at once) and straight into KV, as a write taken elsewhere
// reaches this isolate (through its cache TTL).
const pathOf = (version) => (version % 2 === 1 ? "admin API" : "KV");
async function writeVersion(version) {
  if (pathOf(version) === "KV") return kv.put(keys.pricingKey(MODEL), JSON.stringify(rowOf(version)));
  const res = await fetch(`${base}/v1/admin/pricing/${MODEL}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(rowOf(version)),
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`update ${version}: PUT answered ${res.status}`);
}

console.log(`soak: ${seconds} s at ${rate} req/s on ${base}, ${connections} connections; cache TTL ${ttlSeconds} s`);
console.log(
  `soak: a new price every ${updateEvery} s, alternately through PUT /v1/admin/pricing/${MODEL} and straight into KV (as a write taken by another isolate arrives)`,
);

// Warm up at full speed before the starting memory is taken: workerd's heap
// grows to its working size over the first tens of thousands of requests
// (a bare `return new Response("ok")` worker does the same), and the soak is
// after growth that continues past that.
const [pid] = workerdPids();
const rssBeforeWarmup = rssMiB(pid);
const warmup = await new Promise((resolve, reject) => {
  autocannon(
    {
      url: base,
      connections,
      duration: warmupSeconds,
      requests: [
        {
          method: "POST",
          path: "/v1/gate",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model_name: MODEL, output_tokens: 20_000 }),
        },
      ],
    },
    (error, result) => (error ? reject(error) : resolve(result)),
  );
});
console.log(`soak: warmed up with ${warmup.requests.total} requests in ${warmupSeconds} s`);
const memory = [{ at_s: 0, rss_mib: rssMiB(pid) }];

// What every answer said, and when it arrived.
const started = performance.now();
const now = () => (performance.now() - started) / 1000;
let answers = 0;
let nonJson = 0;
let unknownVersion = 0;
let notDecisions = 0;
const lastSeenOf = new Map(); // version → the last time an answer carried it
const writtenAt = [{ version: 0, at: 0 }];

const requests = [
  {
    method: "POST",
    path: "/v1/gate",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model_name: MODEL, output_tokens: 20_000, horizon: 4, recall_probability: 0.3 }),
    onResponse: (status, body, _context, headers) => {
      answers++;
      const at = now();
      let decision;
      try {
        // autocannon keeps the header names as they came on the wire.
        const type = Object.entries(headers).find(([name]) => name.toLowerCase() === "content-type")?.[1];
        if (!String(type ?? "").startsWith("application/json")) throw new Error("not JSON");
        decision = JSON.parse(body);
      } catch {
        nonJson++;
        return;
      }
      if (status !== 200 || typeof decision.fire !== "boolean" || decision.priced_as?.model !== MODEL) {
        notDecisions++;
        return;
      }
      const version = versionOf(decision.priced_as.input);
      if (!writtenAt.some((write) => write.version === version)) unknownVersion++;
      lastSeenOf.set(version, Math.max(lastSeenOf.get(version) ?? 0, at));
    },
  },
];

const load = new Promise((resolve, reject) => {
  autocannon(
    { url: base, connections, duration: seconds, overallRate: rate, requests, timeout: 10 },
    (error, result) => (error ? reject(error) : resolve(result)),
  );
});

let version = 0;
const updates = (async () => {
  const updatesDue = Math.floor((seconds - 1) / updateEvery);
  for (let k = 1; k <= updatesDue; k++) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, k * updateEvery * 1000 - (performance.now() - started))),
    );
    version = k;
    // Known before the write starts (the API's isolate may serve it before
    // the PUT's answer is read); timed from when the write is done.
    const write = { version: k, at: Infinity, via: pathOf(k) };
    writtenAt.push(write);
    await writeVersion(k);
    write.at = now();
    memory.push({ at_s: Math.round(now()), rss_mib: rssMiB(pid) });
  }
})();

const [result] = await Promise.all([load, updates]);
memory.push({ at_s: Math.round(now()), rss_mib: rssMiB(pid) });
await worker.stop();

// For each update, how long after it was written an answer still carried an older version.
const longestStaleVia = {};
for (const write of writtenAt.slice(1)) {
  const lastOld = Math.max(0, ...[...lastSeenOf].filter(([v]) => v < write.version).map(([, at]) => at));
  const stale = Math.max(0, lastOld - write.at);
  longestStaleVia[write.via] = Math.max(longestStaleVia[write.via] ?? 0, Number(stale.toFixed(3)));
}
const longestStale = Math.max(0, ...Object.values(longestStaleVia));

const errors = result.errors + result.timeouts + result.non2xx + notDecisions;
const report = {
  seconds: result.duration,
  offered_req_per_second: rate,
  requests: result.requests.total,
  answers_checked: answers,
  req_per_second: Math.round(result.requests.total / result.duration),
  latency_p50_ms: result.latency.p50,
  latency_p99_ms: result.latency.p99,
  errors,
  non_json_bodies: nonJson,
  answers_of_an_unknown_version: unknownVersion,
  updates: writtenAt.length - 1,
  updates_via: "admin API and KV, alternately",
  versions_served: [...lastSeenOf.keys()].sort((a, b) => a - b).length,
  longest_old_price_after_update_s: longestStaleVia,
  cache_ttl_s: ttlSeconds,
  warmup_requests: warmup.requests.total,
  workerd_rss_mib_before_warmup: Number(rssBeforeWarmup.toFixed(1)),
  workerd_rss_mib_start: Number(memory[0].rss_mib.toFixed(1)),
  workerd_rss_mib_end: Number(memory[memory.length - 1].rss_mib.toFixed(1)),
  workerd_rss_mib_samples: memory.map((sample) => Number(sample.rss_mib.toFixed(1))),
};
report.workerd_rss_kib_per_1000_requests = Number(
  (((report.workerd_rss_mib_end - report.workerd_rss_mib_start) * 1024) / (report.requests / 1000)).toFixed(1),
);
console.log(JSON.stringify(report, null, 2));

const failures = [];
if (errors > 0) failures.push(`${errors} errors`);
if (nonJson > 0) failures.push(`${nonJson} non-JSON bodies`);
if (unknownVersion > 0) failures.push(`${unknownVersion} answers priced by no row that was written`);
if (longestStale > ttlSeconds)
  failures.push(`an old price served ${longestStale.toFixed(2)} s after its update (TTL ${ttlSeconds} s)`);
if (report.versions_served < report.updates)
  failures.push(`only ${report.versions_served} of ${report.updates + 1} versions were ever served`);
console.log(failures.length === 0 ? "soak: passed" : `soak: FAILED: ${failures.join("; ")}`);
process.exit(failures.length === 0 ? 0 : 1);
