// Plan benchmark: the pure clearing plan (decidePlan) at the API's limits,
// 512 segments of which 64 are candidates, beside one cache-aware gate
// decision measured in the same run, with tinybench; plus the CPU time a
// fixed number of plans takes (process.cpuUsage), the figure the target names.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Bench } from "tinybench";
import { bundle, ROOT } from "../build/bundle.mjs";
import { seeded } from "../build/seeded.mjs";

const SEGMENTS = 512;
const CANDIDATES = 64;
const VARIANTS = 32;

/**
 * VARIANTS plan requests of 512 segments, 64 of them candidates at seeded
 * random places. `scale` sets the sizes: "large" is a long agent history
 * (candidates 10k–60k tokens, ~2.9M in all); "crossing" keeps the history
 * near sonnet-4-5's 200k tier so that plans cross it and the tier search
 * does its most work.
 */
export function makePlans(scale, model, seed = 14) {
  const next = seeded(seed);
  const plans = [];
  for (let v = 0; v < VARIANTS; v++) {
    const at = new Set();
    while (at.size < CANDIDATES) at.add(Math.floor(next() * SEGMENTS));
    const segments = Array.from({ length: SEGMENTS }, (_, i) => {
      if (!at.has(i)) return { tokens: Math.floor(next() * (scale === "large" ? 3_000 : 200)) };
      const tokens = scale === "large" ? 10_000 + Math.floor(next() * 50_000) : 1_000 + Math.floor(next() * 5_000);
      return { id: `call_${i}`, tokens, recall_probability: next() * 0.5 };
    });
    plans.push({
      model_name: model,
      horizon: 2 + Math.floor(next() * 10),
      recall_probability: 0.25,
      cache_hit_rate: 0.9,
      cache_ttl: v % 4 === 0 ? "1h" : "5m",
      large_offload_threshold_tokens: scale === "large" ? 10_000 : 1_000,
      stub_tokens: 200,
      recall_input_tokens: 2_000,
      recall_output_tokens: 500,
      segments,
    });
  }
  return plans;
}

/**
 * VARIANTS adversarial plan requests (test/gate/plan-budget.test.ts holds the
 * first): 64 candidates of 3,000–4,000 tokens with nearly equal value per
 * token, about 223k tokens on sonnet-4-5's 200k tier, so that every
 * earliest stub's plan crosses the threshold and each knapsack repair meets
 * near-ties it cannot prune: the case the plan's node budget exists for.
 */
export function makeAdversarialPlans() {
  return Array.from({ length: VARIANTS }, (_, v) => ({
    model_name: "claude-sonnet-4-5",
    horizon: 4,
    recall_probability: 0.25,
    cache_hit_rate: 0.9,
    large_offload_threshold_tokens: 1_000,
    stub_tokens: 200,
    recall_input_tokens: 2_000,
    recall_output_tokens: 500,
    segments: Array.from({ length: CANDIDATES }, (_, i) => ({
      id: `c${i}`,
      tokens: 3_000 + ((i * 397 + v * 31) % 1_000),
      recall_probability: 0.3 + (i % 10) / 1_000,
    })),
  }));
}

/** CPU microseconds per call of `fn` over `rounds` passes of `items`. */
function cpuMicros(fn, items, rounds) {
  const start = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const item of items) fn(item);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (rounds * items.length);
}

/**
 * Runs the plan benchmark on one thread.
 *
 * @example
 * const plan = await benchPlan(); // { large_untiered: { mean_us: 180, cpu_us: 175, ... }, ... }
 */
export async function benchPlan({ timeMs = 2_000 } = {}) {
  const gate = await import(await bundle("src/gate/index.ts", "gate"));
  const rows = JSON.parse(readFileSync(join(ROOT, "pricing.seed.json"), "utf8")).models;
  const lookup = (model) => ({ status: "priced", row: rows[model], canonical: model });
  const workloads = {
    large_untiered: { plans: makePlans("large", "claude-opus-4-6"), lookup: lookup("claude-opus-4-6") },
    large_tiered: { plans: makePlans("large", "claude-sonnet-4-5"), lookup: lookup("claude-sonnet-4-5") },
    crossing_tiered: { plans: makePlans("crossing", "claude-sonnet-4-5"), lookup: lookup("claude-sonnet-4-5") },
    adversarial_tiered: { plans: makeAdversarialPlans(), lookup: lookup("claude-sonnet-4-5") },
  };
  const decision = {
    model_name: "claude-sonnet-4-5",
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.3,
    cache_hit_rate: 0.9,
    context_tokens: 190_000,
  };
  let sink = 0;
  const bench = new Bench({ time: timeMs, warmup: true, warmupTime: 500 });
  for (const [name, { plans, lookup: priced }] of Object.entries(workloads)) {
    bench.add(name, () => {
      for (const plan of plans) sink += gate.decidePlan(plan, priced).stub.length;
    });
  }
  const gateLookup = lookup("claude-sonnet-4-5");
  bench.add("gate_decision", () => {
    for (let i = 0; i < VARIANTS; i++) sink += gate.decideOutcome("cache_aware", decision, gateLookup).reason.length;
  });
  await bench.run();
  if (sink === 0) throw new Error("the plan benchmark stubbed nothing");
  const perCall = (task) => (task.result.latency.mean * 1000) / VARIANTS;
  const gateMicros = perCall(bench.getTask("gate_decision"));
  const out = { segments: SEGMENTS, candidates: CANDIDATES, gate_decision_us: round(gateMicros) };
  for (const [name, { plans, lookup: priced }] of Object.entries(workloads)) {
    const task = bench.getTask(name);
    const mean = perCall(task);
    out[name] = {
      mean_us: round(mean),
      cpu_us: round(cpuMicros((plan) => gate.decidePlan(plan, priced), plans, 20)),
      gate_decisions_per_plan: Math.round(mean / gateMicros),
      ...searchNodes(gate, plans, priced.row),
    };
  }
  // The adversarial case as it was before one budget per plan: 4,096 nodes for each of up to 128 knapsacks.
  const before = (plan) =>
    gate.bestPlan(gate.planModel(plan, rows["claude-sonnet-4-5"]), gate.nodeBudget(128 * gate.KNAPSACK_NODE_LIMIT));
  out.adversarial_tiered.cpu_us_budget_per_knapsack = round(cpuMicros(before, workloads.adversarial_tiered.plans, 2));
  return out;
}

const round = (x) => Number(x.toFixed(1));

/** Branch-and-bound nodes per plan under the plan's budget (a deterministic measure), and how many plans it cut. */
function searchNodes(gate, plans, row) {
  let most = 0;
  let cut = 0;
  for (const plan of plans) {
    const budget = gate.nodeBudget(gate.PLAN_NODE_BUDGET);
    const choice = gate.bestPlan(gate.planModel(plan, row), budget);
    most = Math.max(most, gate.PLAN_NODE_BUDGET - budget.left);
    if (choice !== null && !choice.exact) cut++;
  }
  return { most_nodes: most, not_exact: cut };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchPlan());
}
