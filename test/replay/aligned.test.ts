import { describe, expect, it } from "vitest";
import {
  alignment,
  detectRecalls,
  fitSizes,
  hindsightSavings,
  keepEverything,
  onEntry,
  priceBook,
  recordedCost,
  type SeedRow,
  simulate,
  type Trace,
  TraceBuilder,
  traceTtl,
} from "../../src/replay";
import seed from "../../pricing.seed.json" with { type: "json" };

const prices = priceBook(seed.models as Record<string, SeedRow>);
const MODEL = "claude-sonnet-4-5";
const usage = (cacheRead: number, write: number) => ({
  input: 3,
  cache_read: cacheRead,
  cache_write_5m: write,
  cache_write_1h: 0,
  output: 80,
});

/**
 * A session of `n` calls, each adding a tool call and an output of 8,000 + 1,000·(i mod 5) characters,
 * usage recorded and growing as the parts do (history and record agree), unless `dropAt` is set: from
 * that call on, the recorded input is `kept` of what the transcript holds (it dropped input unmarked).
 */
function session(n: number, dropAt = Infinity, kept = 0.5): Trace {
  const b = new TraceBuilder("claude-code", `aligned-${n}-${dropAt}`);
  b.add({ kind: "user", text: "start" });
  let input = 5_000;
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const recorded = i >= dropAt ? Math.round(input * kept) : input;
    const read = i === 0 ? 0 : Math.min(previous, recorded - 3);
    b.call(MODEL, Date.UTC(2026, 10, 1) + i * 20_000, usage(read, recorded - 3 - read), i);
    previous = recorded;
    const chars = 8_000 + 1_000 * (i % 5);
    b.add({ kind: "tool_call", text: `{"command":"cat part${i}.txt"}`, tool: "Bash", call_id: `c${i}` });
    b.add({ kind: "tool_output", text: `row ${i} `.padEnd(16, ".").repeat(chars / 16), call_id: `c${i}` });
    input += chars / 4 + 12;
  }
  return b.finish();
}

/** The ids of the tool outputs, in order. */
const outputsOf = (trace: Trace) => trace.parts.flatMap((p, id) => (p.kind === "tool_output" ? [id] : []));

/** What stubbing exactly these outputs on entry saves against keeping everything. */
function savingOf(trace: Trace, ids: readonly number[]) {
  const sizes = fitSizes(trace);
  const ttl = traceTtl(trace);
  const chosen = new Set(ids);
  const keep = simulate(trace, sizes, prices, ttl, keepEverything().start());
  const stubbed = simulate(
    trace,
    sizes,
    prices,
    ttl,
    onEntry("these", {}, (_s, id) => (chosen.has(id) ? 200 : null)).start(),
  );
  return { saving: keep.cost - stubbed.cost, keep, stubbed };
}

describe("a replay that prices only what was paid", () => {
  it("scales positions by recorded ÷ modelled only where the two disagree", () => {
    expect(alignment(90_000, 100_000)).toBe(0.9);
    expect(alignment(50_000, 50_000)).toBe(1);
    expect(alignment(0, 50_000)).toBe(1);
  });

  it("saves with several stubs together what each saves alone, summed, where history and record agree", () => {
    const trace = session(30);
    const outputs = outputsOf(trace);
    const chosen = [outputs[2]!, outputs[9]!, outputs[17]!, outputs[25]!];
    const together = savingOf(trace, chosen);
    expect(together.keep.aligned.calls).toBe(0);
    const alone = chosen.reduce((sum, id) => sum + savingOf(trace, [id]).saving, 0);
    expect(together.saving).toBeGreaterThan(0);
    expect(Math.abs(together.saving - alone)).toBeLessThan(1e-9 * together.keep.cost);
  });

  it("aligns the calls whose recorded input is shorter than the history, and says how many", () => {
    const { keep } = savingOf(session(30, 12), []);
    expect(keep.aligned.calls).toBe(18);
    expect(keep.aligned.tokens).toBeGreaterThan(0);
  });

  it("never credits a stub more at a call than the call paid for the tokens it removes, at the read price where the call read", () => {
    const trace = session(30, 12, 0.5);
    const first = outputsOf(trace)[1]!;
    const { keep, stubbed } = savingOf(trace, [first]);
    const sizes = fitSizes(trace);
    const row = prices(MODEL, null)!;
    const removed = sizes.tokens[first]! - 200;
    let modelled = sizes.constant;
    trace.calls.forEach((call, i) => {
      for (const id of call.added) modelled += sizes.tokens[id]!;
      const credit = keep.perCall[i]! - stubbed.perCall[i]!;
      const paidInput = recordedCost(call.usage!, row)! - call.usage!.output * (row.row.output ?? 0) * 1e-6;
      expect(credit).toBeLessThanOrEqual(paidInput + 1e-12);
      if (i > 12) {
        // About half the history was sent: the stub removed that share of its tokens, all read from the cache.
        const scale = (call.usage!.input + call.usage!.cache_read + call.usage!.cache_write_5m) / modelled;
        expect(scale).toBeLessThan(0.75);
        expect(credit).toBeCloseTo(scale * removed * row.row.cache_read! * 1e-6, 12);
      }
    });
    // Together and alone agree here too: the alignment is linear in the stubs.
    const outputs = outputsOf(trace);
    const chosen = [outputs[3]!, outputs[14]!, outputs[22]!];
    const alone = chosen.reduce((sum, id) => sum + savingOf(trace, [id]).saving, 0);
    expect(savingOf(trace, chosen).saving).toBeCloseTo(alone, 9);
  });

  it.each([
    ["history and record agree", Infinity, 9],
    // At the call where the record drops, it wrote less than a stub removes above its read: replay
    // takes the rest off the uncached input, at the input price, where the oracle priced a write.
    ["the record holds about half the history from call 12", 12, 2],
  ])("prices each output's hindsight saving as replay bills stubbing it alone (%s)", (_case, dropAt, digits) => {
    const trace = session(24, dropAt);
    const sizes = fitSizes(trace);
    const { keep } = savingOf(trace, []);
    const hindsight = hindsightSavings(trace, sizes, keep, detectRecalls(trace).byPart);
    for (const id of outputsOf(trace).slice(0, -1)) {
      const alone = savingOf(trace, [id]).saving;
      expect(alone).toBeGreaterThan(0);
      expect(hindsight.get(id)! / alone).toBeCloseTo(1, digits);
    }
  });
});

describe("a recorded bill under the model's minimum cacheable prefix", () => {
  it("is priced as the provider recorded it: cache reads at the read price, writes at the write price", () => {
    // claude-opus-4-6 caches nothing below 4,096 tokens, but a recorded call's counts say what was cached.
    const row = prices("claude-opus-4-6", null)!;
    expect(row.row.min_cache_prefix_tokens).toBe(4_096);
    const cost = recordedCost(
      { input: 300, cache_read: 2_200, cache_write_5m: 60, cache_write_1h: 0, output: 120 },
      row,
    );
    // 300 × $5 + 2,200 × $0.50 + 60 × $6.25 + 120 × $25, per million.
    expect(cost).toBeCloseTo((300 * 5 + 2_200 * 0.5 + 60 * 6.25 + 120 * 25) / 1e6, 15);
  });
});
