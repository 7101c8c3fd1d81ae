// Sync benchmark: the price sync's CPU on a hostile but legal source (one
// model's same-price dated snapshots, the case that was quadratic), parsed
// and compared with KV as a run does (parseSource, then diffSource), at N
// and at 2N snapshots up to the 8 MiB limit. Wall times swing with the
// machine; the ratio t(2N) ÷ t(N) does not: about 2 is linear, about 4
// quadratic.
import { bundle } from "../build/bundle.mjs";

const SNAPSHOT = { input_cost_per_token: 2e-6, output_cost_per_token: 8e-6, litellm_provider: "openai", mode: "chat" };
const URL = "https://prices.example.test/model_prices_and_context_window.json";

/** The source's text: `count` dated snapshots of one model, all billing the same. */
export function snapshotSource(count) {
  const file = {};
  for (let i = 0; i < count; i++) file[`gpt-flood-${20_000_000 + i}`] = SNAPSHOT;
  return JSON.stringify(file);
}

/** CPU milliseconds of `fn`, the median of `runs`. */
function cpuMs(fn, runs) {
  const times = [];
  for (let r = 0; r < runs; r++) {
    const start = process.cpuUsage();
    fn();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

/**
 * Runs the sync benchmark: CPU per run at N and 2N snapshots, the largest
 * just under the source limit.
 *
 * @example
 * const sync = await benchSync(); // { snapshots: [40000, 80000], cpu_ms: [310, 640], ratio_2n_over_n: 2.06, ... }
 */
export async function benchSync({ runs = 5 } = {}) {
  const { parseSource, MAX_SOURCE_BYTES } = await import(await bundle("src/sync/source.ts", "sync-source"));
  const { diffSource } = await import(await bundle("src/sync/diff.ts", "sync-diff"));
  const kv = { rows: new Map(), aliases: new Map() };
  const entryBytes = snapshotSource(2).length / 2;
  const largest = Math.floor((MAX_SOURCE_BYTES - 1024) / entryBytes);
  const sizes = [Math.floor(largest / 2), largest];
  const cpu = sizes.map((count) => {
    const text = snapshotSource(count);
    if (text.length > MAX_SOURCE_BYTES) throw new Error(`the bench's source is over the limit: ${text.length} bytes`);
    let skipped = 0;
    const ms = cpuMs(() => {
      const parsed = parseSource(text);
      const diff = diffSource(parsed.entries, kv, new Set(["openai"]), URL);
      skipped = diff.ok ? diff.skipped.length : -1;
    }, runs);
    if (skipped !== 1) throw new Error(`expected the flood to be skipped as one model, got ${skipped}`);
    return { count, bytes: text.length, ms };
  });
  return {
    snapshots: cpu.map((c) => c.count),
    bytes: cpu.map((c) => c.bytes),
    cpu_ms: cpu.map((c) => Number(c.ms.toFixed(1))),
    ratio_2n_over_n: Number((cpu[1].ms / cpu[0].ms).toFixed(2)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchSync());
}
