// Scheduled prices: what picking the prices in force costs per request, next
// to a row without a schedule, and what building a row's schedule costs once
// per cache fill. Measured with tinybench on the pure core.
import { Bench } from "tinybench";
import { bundle } from "../build/bundle.mjs";

const gate = await import(await bundle("src/gate/index.ts", "gate"));
const row = {
  input: 0.75,
  output: 3.75,
  cache_read: 0.075,
  scheduled: [
    { effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5, cache_read: 0.15 },
    { effective_at: "2027-06-01T00:00:00Z", input: 2 },
  ],
};
const schedule = gate.priceSchedule(row);
const now = Date.parse("2027-02-01T00:00:00Z");
let sink = 0;
const bench = new Bench({ time: Number(process.env.BENCH_MS ?? 1_000), warmup: true });
bench
  .add("priceInForce (per request, 3 epochs)", () => {
    sink += gate.priceInForce(schedule, now).row.input;
  })
  .add("row without a schedule (per request: the check the route does)", () => {
    sink += row.output === undefined ? 0 : 1;
  })
  .add("priceSchedule (once per cache fill)", () => {
    sink += gate.priceSchedule(row).length;
  });
await bench.run();
if (sink === 0) throw new Error("the benchmark measured nothing");
console.table(bench.tasks.map((task) => ({ task: task.name, "ns per call": Math.round(task.result.period * 1e6) })));
