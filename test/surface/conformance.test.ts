import { describe, expect, it } from "vitest";
import { evaluateOffloadGate, type OffloadGateInputs } from "../../src/gate";
import { VECTOR_PRICING as pricing, VECTORS as vectors, type Vector } from "../fixtures/vectors";

/** The reference looks rows up in MODEL_PRICING by exact name; so do the vectors. */
const decide = (inputs: OffloadGateInputs) => evaluateOffloadGate(inputs, pricing[inputs.model_name]);

describe("the conformance vectors", () => {
  it("holds all 412 cases", () => {
    expect(vectors).toHaveLength(412);
  });

  it.each(vectors.map((vector) => [vector.id, vector] as const))("%s matches the reference exactly", (_id, vector) => {
    const actual = decide(vector.inputs);
    expect(actual.fire).toBe(vector.expected.fire);
    expect(actual.net_saving_usd).toBe(vector.expected.net_saving_usd);
    expect(actual.reprefill_saving_usd).toBe(vector.expected.reprefill_saving_usd);
    expect(actual.stub_carry_cost_usd).toBe(vector.expected.stub_carry_cost_usd);
    expect(actual.expected_recall_hop_cost_usd).toBe(vector.expected.expected_recall_hop_cost_usd);
    expect(actual.reason).toBe(vector.expected.reason);
  });
});

describe("the worked examples", () => {
  const byId = (id: string) => vectors.find((vector) => vector.id === id) as Vector;

  it("A: a 20,000-token output carried 4 turns on opus fires with net $0.3893", () => {
    const decision = decide(byId("f000").inputs);
    expect(decision.fire).toBe(true);
    expect(decision.net_saving_usd).toBe(0.38925000000000004);
    expect(decision.reason).toBe(
      "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
    );
  });

  it("B: with the pre-filter off, a 600-token output likely recalled loses money and does not fire", () => {
    const decision = decide(byId("f001").inputs);
    expect(decision.fire).toBe(false);
    expect(decision.net_saving_usd).toBe(-0.018250000000000002);
    expect(decision.reason).toBe(
      "net=$-0.0183 (saving=$0.0030 − stub=$0.0010 − recall=$0.0203); H=1 p_recall=0.90 model=claude-opus-4-6",
    );
  });
});
