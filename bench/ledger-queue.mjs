// Queued ledger writes (docs/ledger.md § Queued writes), for `npm run
// bench:ledger`: what one shard absorbs when LEDGER_QUEUE is bound, (a)
// through the gate, single-decision POST /v1/gate requests, and (b) as the
// consumer's drain rate for a backlog of single-decision messages. Locally
// (workerd through miniflare, 127.0.0.1, in-memory SQLite) the gate, the
// queue broker, the consumer and the shard share one workerd process.
import { bundle } from "../build/bundle.mjs";
import { loadGate } from "./gate-load.mjs";
import { startWorker } from "../build/workerd.mjs";

const POLL_MS = 100;

/** Polls one tenant's shard 0 until it holds `count` decisions or `timeoutMs` passes; answers when it did (ms) and what it held. */
async function landed(base, tenant, count, timeoutMs) {
  const started = performance.now();
  let held = 0;
  while (performance.now() - started < timeoutMs) {
    held = (await (await fetch(`${base}/bench/storage?tenant=${tenant}`)).json()).decisions;
    if (held >= count) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return { held, at: performance.now() };
}

/**
 * Runs both measurements on a worker of its own (port `port`) and answers their rows.
 *
 * @example
 * const runs = await queuedRuns({ port: 8973, seconds: 10, backlog: 20_000 });
 */
export async function queuedRuns({ port, seconds, backlog }) {
  const scriptPath = await bundle("bench/ledger-queue-entry.ts", "ledger-queue-worker");
  // One shard per tenant: every decision below lands in the same shard.
  const worker = await startWorker({ scriptPath, port, config: { ledger_shards: 1 }, queues: true });
  try {
    // (a) Through the gate: every 200 is one message. Decisions/s is what the shard held once all had
    // landed over the load's duration, as the direct run counts it; `landed_ms_after_load` is the delay of the last.
    const result = await loadGate(worker.base, seconds);
    const ended = performance.now();
    const during = (await (await fetch(`${worker.base}/bench/storage?tenant=default`)).json()).decisions;
    const ok = result.requests.total - result.non2xx;
    const after = await landed(worker.base, "default", ok, 120_000);
    const gate = {
      run: "queued: single POST /v1/gate requests, one shard",
      connections: 16,
      calls: result.requests.total,
      errors: result.errors + result.non2xx,
      calls_per_second: Math.round(result.requests.total / seconds),
      stored_during_load: during,
      stored: after.held,
      decisions_per_second: Math.round(after.held / seconds),
      landed_ms_after_load: Math.round(after.at - ended),
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
    };
    // (b) The consumer's drain: `backlog` single-decision messages, enqueued as the gate sends them
    // (while the consumer already drains), timed until the shard holds them all.
    const t0 = performance.now();
    const perCall = 1_000;
    await Promise.all(
      Array.from({ length: Math.ceil(backlog / perCall) }, () =>
        fetch(`${worker.base}/bench/enqueue?tenant=drain&n=${perCall}`),
      ),
    );
    const enqueued = performance.now();
    const storedWhenEnqueued = (await (await fetch(`${worker.base}/bench/storage?tenant=drain`)).json()).decisions;
    const drained = await landed(worker.base, "drain", backlog, 300_000);
    const drain = {
      run: "queued: the consumer draining a backlog of single-decision messages into one shard",
      messages: backlog,
      enqueue_ms: Math.round(enqueued - t0),
      stored_when_enqueued: storedWhenEnqueued,
      stored: drained.held,
      drain_ms: Math.round(drained.at - t0),
      // From the first send to the last decision stored, enqueuing included.
      decisions_per_second: Math.round(drained.held / ((drained.at - t0) / 1000)),
      // Once every message was in the queue: the consumer alone.
      decisions_per_second_after_enqueue: Math.round(
        (drained.held - storedWhenEnqueued) / ((drained.at - enqueued) / 1000),
      ),
    };
    return [gate, drain];
  } finally {
    await worker.stop();
  }
}

// `node bench/ledger-queue.mjs`: these runs alone (`npm run bench:ledger` runs them after the direct ones).
if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.BENCH_LEDGER_PORT ?? 8872) + 1;
  const seconds = Math.min(60, Number(process.env.BENCH_LEDGER_SECONDS ?? 10));
  console.log(
    JSON.stringify(
      await queuedRuns({ port, seconds, backlog: Number(process.env.BENCH_LEDGER_BACKLOG ?? 20_000) }),
      null,
      2,
    ),
  );
}
