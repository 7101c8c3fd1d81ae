// The rollups' run of `npm run bench:ledger` (bench/ledger.mjs imports it):
// one shard filled with BENCH_ROLLUP_DECISIONS decisions (default 1,000,000)
// over 30 days of hours, every one with an outcome, sessions of 20 decisions
// about two tools, each with its bill; then the savings report's time over
// the whole retention (the route, and the shard's sums alone), the same sums
// over raw rows for comparison, and SQLite's size before and after the raw
// window's purge. Its own worker on 127.0.0.1:BENCH_LEDGER_ROLLUP_PORT (default BENCH_LEDGER_PORT + 2; the queued run takes + 1).
import { loadavg } from "node:os";
import { bundle } from "../build/bundle.mjs";
import { startWorker } from "../build/workerd.mjs";

const PORT = Number(process.env.BENCH_LEDGER_ROLLUP_PORT ?? Number(process.env.BENCH_LEDGER_PORT ?? 8872) + 2);
const DECISIONS = Math.min(2_000_000, Number(process.env.BENCH_ROLLUP_DECISIONS ?? 1_000_000));
const HOUR = 3_600_000;
const DAY = 86_400_000;
// 30 days of hours up to the current one: the report's default window (the retention, up to now) holds them all.
const HOURS = 30 * 24 - 1;
const PER_SESSION = 20;
const TENANT = "rollup-bench";
// A test-only admin token for this local run (never a real secret).
const ADMIN = "bench:bench-rollup-token-0123456789";
const LOOKS = 5;

/** The median of a few timed calls of `call`, after one untimed warm-up. */
async function timed(call) {
  await call();
  const times = [];
  for (let i = 0; i < LOOKS; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]);
}

/**
 * Fills, measures, purges, measures again.
 *
 * @example
 * const figures = await rollupRun(); // { decisions: 1000000, report_ms: …, … }
 */
export async function rollupRun() {
  const scriptPath = await bundle("bench/ledger-rollup-entry.ts", "ledger-rollup-worker");
  const worker = await startWorker({
    scriptPath,
    port: PORT,
    config: { ledger_shards: 1, holdout_fraction: 0.1, ledger_raw_days: 2 },
    bindings: { ADMIN_TOKEN: ADMIN },
  });
  const get = async (path, headers = {}) => {
    const res = await fetch(`${worker.base}${path}`, { headers });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  try {
    const load = loadavg()
      .map((x) => x.toFixed(2))
      .join(" ");
    const now = Date.now();
    const first = now - (now % HOUR) - HOURS * HOUR;
    const sessionsPerHour = Math.max(1, Math.round(DECISIONS / HOURS / PER_SESSION));
    const started = performance.now();
    let written = 0;
    for (let h = 0; h < HOURS; h++) {
      written += (
        await get(
          `/bench/fill?tenant=${TENANT}&hour=${first + h * HOUR}&sessions=${sessionsPerHour}&per_session=${PER_SESSION}&raw_days=2`,
        )
      ).decisions;
    }
    const fillSeconds = (performance.now() - started) / 1000;
    // The retention's window, from the top of its first hour (so the purge cannot move its start) up to now.
    const from = first;
    const to = now + HOUR;
    const window = `from=${new Date(from).toISOString()}`;
    const report = () =>
      get(`/v1/admin/savings?tenant=${TENANT}&${window}`, { authorization: `Bearer ${ADMIN.split(":")[1]}` });
    const checked = await report();
    const before = {
      storage: await get(`/bench/storage?tenant=${TENANT}`),
      report_ms: await timed(report),
      // Inside the object, no RPC: the sums (O(hours) from rollups, O(sessions) for the clustered intervals) and the verdicts' pairs (O(sessions × tools)).
      in_shard: await get(`/bench/rollup-sums?tenant=${TENANT}&from=${from}&to=${to}`),
      // Over raw rows it scans the window: timed once, it takes seconds.
      raw_sums_ms: (await get(`/bench/raw-sums?tenant=${TENANT}&from=${from}&to=${to}`)).ms,
    };
    await get(`/bench/purge?tenant=${TENANT}`);
    const after = { storage: await get(`/bench/storage?tenant=${TENANT}`), report_ms: await timed(report) };
    const again = await report();
    const perMillion = (bytes) => Math.round((bytes / written) * 1_000_000);
    return {
      load_average_at_start: load,
      decisions: written,
      sessions: sessionsPerHour * HOURS,
      fill_seconds: Math.round(fillSeconds),
      report_decisions: checked.decisions,
      same_report_after_purge:
        JSON.stringify({ ...checked, window: null }) === JSON.stringify({ ...again, window: null }),
      before: { ...before, bytes_per_million: perMillion(before.storage.bytes) },
      after: { ...after, bytes_per_million: perMillion(after.storage.bytes) },
      load_average_at_end: loadavg()
        .map((x) => x.toFixed(2))
        .join(" "),
    };
  } finally {
    await worker.stop();
  }
}

// Run alone: `node bench/ledger-rollup.mjs` (BENCH_ROLLUP_DECISIONS=100000 for a quick look).
if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await rollupRun(), null, 2));
