// Core benchmark: decisions per second of the pure gate on 100,000 varied
// inputs, reason strings included, measured with tinybench.
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { Bench } from "tinybench";
import { bundle, ROOT } from "../build/bundle.mjs";
import { seeded } from "../build/seeded.mjs";

const INPUTS = 100_000;

/**
 * 100,000 inputs across every seed model: about a fifth below the pre-filter,
 * some fractional token counts (output_chars / 4), some with overridden stub
 * and recall sizes, horizons 0–60 and recall probabilities across [0, 1].
 */
export function makeInputs(count = INPUTS, seed = 42) {
  // Seeded, so every run decides the same inputs.
  const next = seeded(seed);
  const models = JSON.parse(readFileSync(join(ROOT, "pricing.seed.json"), "utf8")).models;
  const names = Object.keys(models);
  const inputs = [];
  for (let i = 0; i < count; i++) {
    const model_name = names[Math.floor(next() * names.length)];
    const below = next() < 0.2;
    const tokens = below ? Math.floor(next() * 10_000) : 10_000 + Math.floor(next() * 190_000);
    const input = {
      model_name,
      output_tokens: next() < 0.3 ? tokens + 0.25 * Math.floor(next() * 4) : tokens,
      horizon: Math.floor(next() * 61),
      recall_probability: next(),
    };
    if (next() < 0.25) {
      input.stub_tokens = Math.floor(next() * 1_000);
      input.recall_input_tokens = Math.floor(next() * 8_000);
      input.recall_output_tokens = Math.floor(next() * 2_000);
    }
    inputs.push({ input, row: models[model_name] });
  }
  return inputs;
}

async function loadGate(path) {
  return import(path ?? (await bundle("src/gate/index.ts", "gate")));
}

/** Mean decisions per second of each task, by tinybench, on one thread. */
async function measure(gate, { timeMs, withDecide }) {
  const inputs = makeInputs();
  const lookups = inputs.map(({ row }) => ({ status: "priced", row, canonical: "m" }));
  let sink = 0;
  const bench = new Bench({ time: timeMs, warmup: true, warmupTime: 500, iterations: 5 });
  bench.add("evaluateOffloadGate", () => {
    for (let i = 0; i < inputs.length; i++)
      sink += gate.evaluateOffloadGate(inputs[i].input, inputs[i].row).reason.length;
  });
  if (withDecide) {
    bench.add("decideGate", () => {
      for (let i = 0; i < inputs.length; i++) sink += gate.decideGate(inputs[i].input, lookups[i]).reason.length;
    });
  }
  await bench.run();
  if (sink === 0) throw new Error("the benchmark decided nothing");
  return Object.fromEntries(
    bench.tasks.map((task) => [task.name, Math.round(inputs.length / (task.result.period / 1000))]),
  );
}

/**
 * Runs the core benchmark: one thread (evaluateOffloadGate, the reference
 * port, and decideGate, what the route calls), then one thread per core at
 * once (evaluateOffloadGate), summed.
 *
 * @example
 * const core = await benchCore(); // { evaluate_per_second_1_thread: 1.2e6, ... }
 */
export async function benchCore({ timeMs = 3_000 } = {}) {
  const path = await bundle("src/gate/index.ts", "gate");
  const gate = await loadGate(path);
  const inputs = makeInputs();
  const fired = inputs.filter(({ input, row }) => gate.evaluateOffloadGate(input, row).fire).length;
  const single = await measure(gate, { timeMs, withDecide: true });
  const threads = availableParallelism();
  const perThread = await Promise.all(
    Array.from(
      { length: threads },
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL(import.meta.url), { workerData: { timeMs, path } });
          worker.once("message", resolve);
          worker.once("error", reject);
        }),
    ),
  );
  return {
    inputs: inputs.length,
    fired,
    evaluate_per_second_1_thread: single.evaluateOffloadGate,
    decide_per_second_1_thread: single.decideGate,
    threads,
    evaluate_per_second_all_cores: perThread.reduce((sum, rates) => sum + rates.evaluateOffloadGate, 0),
  };
}

if (!isMainThread && workerData?.timeMs !== undefined) {
  parentPort.postMessage(
    await measure(await loadGate(workerData.path), { timeMs: workerData.timeMs, withDecide: false }),
  );
} else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchCore());
}
