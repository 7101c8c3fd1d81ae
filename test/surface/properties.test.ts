import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { evaluateOffloadGate, type OffloadGateInputs } from "../../src/gate";
import { runs } from "../support/runs";

const RUNS = { numRuns: runs(1_000), seed: 4_2026 };

const price = fc.double({ min: 0, max: 100, noNaN: true });
const row = fc.record({ input: price, output: price });
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const inputs: fc.Arbitrary<OffloadGateInputs> = fc.record({
  model_name: fc.string({ maxLength: 20 }),
  output_tokens: fc.double({ min: 0, max: 1e7, noNaN: true }),
  horizon: fc.integer({ min: -5, max: 500 }),
  recall_probability: fc.double({ min: -0.5, max: 1.5, noNaN: true }),
  large_offload_threshold_tokens: fc.integer({ min: 0, max: 50_000 }),
  stub_tokens: fc.integer({ min: 0, max: 5_000 }),
  recall_input_tokens: fc.integer({ min: 0, max: 50_000 }),
  recall_output_tokens: fc.integer({ min: 0, max: 10_000 }),
});

describe("evaluateOffloadGate properties", () => {
  it("never throws on finite inputs, however extreme", () => {
    const anyInputs = fc.record({
      model_name: fc.string(),
      output_tokens: finite,
      horizon: finite,
      recall_probability: finite,
      large_offload_threshold_tokens: finite,
      stub_tokens: finite,
      recall_input_tokens: finite,
      recall_output_tokens: finite,
    });
    const anyRow = fc.option(fc.record({ input: finite, output: finite }, { requiredKeys: [] }), { nil: undefined });
    fc.assert(
      fc.property(anyInputs, anyRow, (given, pricing) => {
        const decision = evaluateOffloadGate(given, pricing);
        expect(typeof decision.reason).toBe("string");
      }),
      RUNS,
    );
  });

  it("fires exactly when net > 0", () => {
    fc.assert(
      fc.property(inputs, row, (given, pricing) => {
        const decision = evaluateOffloadGate(given, pricing);
        expect(decision.fire).toBe(decision.net_saving_usd > 0);
      }),
      RUNS,
    );
  });

  it("above the threshold, never lowers net as output_tokens grows", () => {
    fc.assert(
      fc.property(inputs, row, fc.double({ min: 0, max: 1e7, noNaN: true }), (given, pricing, extra) => {
        const base = { ...given, large_offload_threshold_tokens: 0 };
        const smaller = evaluateOffloadGate(base, pricing);
        const larger = evaluateOffloadGate({ ...base, output_tokens: base.output_tokens + extra }, pricing);
        expect(larger.net_saving_usd).toBeGreaterThanOrEqual(smaller.net_saving_usd);
      }),
      RUNS,
    );
  });

  it("above the threshold, never raises net as recall_probability grows", () => {
    fc.assert(
      fc.property(inputs, row, fc.double({ min: 0, max: 1, noNaN: true }), (given, pricing, extra) => {
        const base = { ...given, large_offload_threshold_tokens: 0 };
        const lessLikely = evaluateOffloadGate(base, pricing);
        const moreLikely = evaluateOffloadGate(
          { ...base, recall_probability: base.recall_probability + extra },
          pricing,
        );
        expect(moreLikely.net_saving_usd).toBeLessThanOrEqual(lessLikely.net_saving_usd);
      }),
      RUNS,
    );
  });

  it("never fires for an unpriced model", () => {
    fc.assert(
      fc.property(inputs, (given) => {
        const decision = evaluateOffloadGate(given, undefined);
        expect(decision.fire).toBe(false);
        expect(decision.net_saving_usd).toBe(0);
      }),
      RUNS,
    );
  });
});
