import { describe, expect, it } from "vitest";
import { decidePlan, evaluateCacheAwareGate } from "../../src/gate";
import {
  claudeCodePersist,
  clearToolUses,
  deepagentsEviction,
  gatePlan,
  gatePolicy,
  keepEverything,
  observationMask,
  priceBook,
  replayTrace,
  sizeOnly,
  TraceBuilder,
  verdictOf,
  type Policy,
  type TraceReplay,
} from "../../src/replay";

// One row with round prices (USD per million): input 10, output 50, cache read 1, 5-minute write 12.5.
const prices = priceBook({ m: { input: 10, output: 50, cache_read: 1, cache_write: 12.5, provider: "anthropic" } });
const t0 = Date.parse("2026-11-01T10:00:00Z");

/**
 * The worked example of docs/replay.md: a 1,000-token task, then a
 * 20,000-token output, then a 10,000-token one; calls a minute apart; no
 * usage, so a token is 4 characters (factor 1, no constant).
 */
function example() {
  const b = new TraceBuilder("offload-log", "worked");
  b.add({ kind: "user", text: "u".repeat(4_000) });
  b.call("m", t0, null, 1);
  b.output(b.chars(b.add({ kind: "assistant", text: "a".repeat(400) })));
  b.add({ kind: "tool_call", text: "", tool: "Read", call_id: "c0" });
  b.add({ kind: "tool_output", text: "x".repeat(80_000), call_id: "c0" });
  b.call("m", t0 + 60_000, null, 2);
  b.output(b.chars(b.add({ kind: "assistant", text: "b".repeat(400) })));
  b.add({ kind: "tool_call", text: "", tool: "Read", call_id: "c1" });
  b.add({ kind: "tool_output", text: "y".repeat(40_000), call_id: "c1" });
  b.call("m", t0 + 120_000, null, 3);
  return b.finish();
}

const run = (policies: Policy[]) => replayTrace(example(), prices, [keepEverything(), ...policies]) as TraceReplay;
const policy = (r: TraceReplay, name: string) => r.policies.find((p) => p.name === name)!;

describe("each policy's arithmetic on the worked example", () => {
  it("keep-everything: each call reads what the call before sent and writes the rest", () => {
    // 1,000 written + 100 out; 1,000 read + 20,100 written + 100 out; 21,100 read + 10,100 written.
    const r = run([]);
    expect(policy(r, "keep_everything").cumulative).toEqual([
      expect.closeTo(0.0175, 12),
      expect.closeTo(0.27475, 12),
      expect.closeTo(0.4221, 12),
    ]);
  });

  it("size-only at 10,000 tokens: both outputs stubbed on entry, each charged one recall at the pessimistic end", () => {
    const p = policy(run([sizeOnly({ threshold: 10_000, stub_tokens: 200 })]), "size_only");
    // 0.0175 + (1,000 read + 300 written + 100 out) + (1,300 read + 300 written).
    expect(p.cost_usd).toBeCloseTo(0.0323, 12);
    // Hops: 1,300 read + 20,000 written + 500 out = 0.2763; 1,600 read + 10,000 written + 500 out = 0.1516.
    expect(p.cost_pessimistic_usd).toBeCloseTo(0.0323 + 0.2763 + 0.1516, 12);
    expect(p.saving_usd[0]).toBeCloseTo(0.4221 - 0.4602, 12);
    expect(p.saving_usd[1]).toBeCloseTo(0.4221 - 0.0323, 12);
    expect(verdictOf(p.saving_usd)).toBe("uncertain");
  });

  it("the seed gate fires on both (net = 20,000·10e-6·4 − 200·10e-6·4 − 0.25·(2,000·10e-6 + 500·50e-6) = $0.78075 > 0), so it bills as size-only", () => {
    const r = run([gatePolicy("seed"), sizeOnly()]);
    expect(policy(r, "gate_seed").cost_usd).toBeCloseTo(policy(r, "size_only").cost_usd, 15);
    expect(policy(r, "gate_seed").stubbed).toBe(2);
  });

  it("masking all but the last output: the first is masked at the third call, which re-writes from it", () => {
    const p = policy(run([observationMask({ keep_last: 1 })]), "mask_last_1");
    // Third call: 1,100 read, then 10 (placeholder) + 100 + 10,000 written: 0.0011 + 0.126375.
    expect(p.cost_usd).toBeCloseTo(0.0175 + 0.25725 + 0.127475, 12);
    expect(p.cache_writes_caused_tokens).toBeCloseTo(10_110 - 10_100, 9);
  });

  it("clear_tool_uses with trigger 25,000 and keep 1 clears the first output once the input passes the trigger", () => {
    const r = run([clearToolUses({ trigger: 25_000, keep: 1 }), observationMask({ keep_last: 1 })]);
    expect(policy(r, "clear_tool_uses").cost_usd).toBeCloseTo(policy(r, "mask_last_1").cost_usd, 15);
    // Below the trigger nothing is cleared: at the defaults (100,000) it is keep-everything.
    expect(policy(run([clearToolUses()]), "clear_tool_uses").cost_usd).toBeCloseTo(0.4221, 12);
  });

  it("clear_at_least holds the clearing back when it would clear too little", () => {
    const p = policy(run([clearToolUses({ trigger: 25_000, keep: 1, clear_at_least: 30_000 })]), "clear_tool_uses");
    expect(p.stubbed).toBe(0);
  });

  it("the mask's boundary moving every K calls masks nothing until a multiple of K", () => {
    const p = policy(run([observationMask({ keep_last: 1, every: 3 })]), "mask_last_1_every_3");
    expect(p.stubbed).toBe(0);
  });
});

describe("the verdict on a range", () => {
  it("never says a policy saves on the detected end alone", () => {
    expect(verdictOf([-0.01, 5])).toBe("uncertain");
    expect(verdictOf([0.01, 5])).toBe("saves");
    expect(verdictOf([-3, -0.5])).toBe("costs");
    expect(verdictOf([0, 0])).toBe("no change");
  });
});

describe("the rest of the policies on the worked example", () => {
  it("the cache-aware gate fires on both (net ≈ $0.3621 and $0.1618 at q = 0.9, context 1,100 and 21,200), so it bills as size-only", () => {
    const inputs = { model_name: "m", horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9, stub_tokens: 200 };
    const row = prices("m", null)!.row;
    expect(
      evaluateCacheAwareGate({ ...inputs, output_tokens: 20_000, context_tokens: 1_100 }, row).net_saving_usd,
    ).toBeCloseTo(0.379 - 0.00379 - 0.01309125, 12);
    expect(evaluateCacheAwareGate({ ...inputs, output_tokens: 10_000, context_tokens: 21_200 }, row).fire).toBe(true);
    const r = run([gatePolicy("cache_aware"), sizeOnly()]);
    expect(policy(r, "gate_cache_aware").cost_usd).toBeCloseTo(policy(r, "size_only").cost_usd, 15);
  });

  it("Claude Code's persistence keeps a 2,000-character preview (540 tokens) of the 80,000-character output only", () => {
    const p = policy(run([claudeCodePersist()]), "claude_code_persist");
    // Second call: 1,000 read + 640 written + 100 out; third: 1,640 read + 10,100 written.
    expect(p.stubbed).toBe(1);
    expect(p.cost_usd).toBeCloseTo(0.0175 + 0.014 + 0.12789, 12);
  });

  it("deepagents' eviction leaves a 10-line preview of an output over its threshold", () => {
    const p = policy(run([deepagentsEviction({ threshold_tokens: 15_000 })]), "deepagents_evict");
    // A one-line output: its preview is one line cut at 500 characters, 40 + 501 ÷ 4 tokens.
    const stub = 40 + 501 / 4;
    expect(p.stubbed).toBe(1);
    expect(p.cost_usd).toBeCloseTo(
      0.0175 + (0.001 + (100 + stub) * 12.5e-6 + 0.005) + ((1_100 + stub) * 1e-6 + 10_100 * 12.5e-6),
      12,
    );
  });

  it("the clearing plan asked at the third call stubs what decidePlan answers there, in one rewrite", () => {
    const p = policy(run([gatePlan({ every: 2 })]), "gate_plan");
    const plan = decidePlan(
      {
        model_name: "m",
        horizon: 4,
        recall_probability: 0.25,
        cache_hit_rate: 0.9,
        cache_ttl: "5m",
        stub_tokens: 200,
        segments: [{ tokens: 1_100 }, { id: "3", tokens: 20_000 }, { tokens: 100 }, { id: "6", tokens: 10_000 }],
      },
      { status: "priced", row: prices("m", null)!.row, canonical: "m" },
    );
    expect(plan.stub).toEqual(["3", "6"]);
    // Third call: 1,100 read, then 200 + 100 + 200 written.
    expect(p.stubbed).toBe(2);
    expect(p.cost_usd).toBeCloseTo(0.0175 + 0.25725 + (0.0011 + 500 * 12.5e-6), 12);
  });
});
