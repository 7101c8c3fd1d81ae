import { beforeAll, describe, expect, it } from "vitest";
import { postJson, putRow, resetState } from "../support/helpers";
import { VECTOR_PRICING as pricing, VECTORS } from "../fixtures/vectors";

// The API's rows must carry an output price (a missing one would under-price every recall hop),
// so the one vector model without it is checked by the core's conformance test alone.
const storable = (model: string) => pricing[model]?.output !== undefined;
const vectors = VECTORS.filter(
  (vector) =>
    vector.api_valid && (pricing[vector.inputs.model_name] === undefined || storable(vector.inputs.model_name)),
);

beforeAll(async () => {
  await resetState();
  for (const [model, row] of Object.entries(pricing)) {
    if (storable(model)) await putRow(model, { input: row.input ?? 0, output: row.output ?? 0 });
  }
});

describe("the conformance vectors through POST /v1/gate/batch", () => {
  it("covers every API-valid vector but those of the output-less model", () => {
    expect(vectors).toHaveLength(337); // 373 API-valid, less the 36 of input-only-model
  });

  it("answers every one exactly as the reference does, priced from KV", async () => {
    for (let start = 0; start < vectors.length; start += 100) {
      const chunk = vectors.slice(start, start + 100);
      const res = await postJson("/v1/gate/batch", { items: chunk.map((vector) => vector.inputs) });
      expect(res.status).toBe(200);
      const { decisions } = await res.json<{ decisions: Record<string, unknown>[] }>();
      chunk.forEach((vector, i) => {
        const answer = decisions[i] as Record<string, unknown>;
        const {
          fire,
          net_saving_usd,
          reprefill_saving_usd,
          stub_carry_cost_usd,
          expected_recall_hop_cost_usd,
          reason,
        } = answer;
        expect({
          id: vector.id,
          fire,
          net_saving_usd,
          reprefill_saving_usd,
          stub_carry_cost_usd,
          expected_recall_hop_cost_usd,
          reason,
        }).toEqual({
          id: vector.id,
          ...vector.expected,
        });
      });
    }
  });
});
