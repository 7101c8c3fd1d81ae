import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { answerJson } from "../../src/routes/gate/direct/answer-json";
import { answerBatch } from "../../src/routes/gate/direct/batch";
import { gateContext } from "../../src/routes/kernel/context";
import { decideRequest } from "../../src/routes/gate/direct/decide";
import { compiledGateRequest } from "../../src/routes/gate/direct/compiled";
import { VECTOR_PRICING, VECTORS } from "../fixtures/vectors";
import { acceptedGate, gateRequest, MODELS } from "../support/fuzz-gate-bodies";
import { OPUS, putRow, resetState } from "../support/helpers";

// The gate's answer is written from its parts (src/routes/gate/direct/answer-json.ts):
// every byte must be JSON.stringify's.

// No ledger bound: the answers are the same, and nothing is left writing when a test ends.
const bindings = { ...env, LEDGER: undefined, LEDGER_QUEUE: undefined } as unknown as Env;
const context = () => gateContext(bindings, "default", () => {});

/** The answer of a body the gate accepts, or null for one it refuses (its error is not written by the serialiser). */
async function answerOf(body: unknown): Promise<object | null> {
  const request = compiledGateRequest(body);
  if (request === undefined) return null;
  try {
    return await decideRequest(request, context());
  } catch {
    return null;
  }
}

beforeAll(async () => {
  await resetState();
  for (const [model, row] of Object.entries(VECTOR_PRICING))
    if (row.output !== undefined) await putRow(model, { input: row.input ?? 0, output: row.output });
  await putRow("claude-opus-4-6", OPUS);
  await putRow("claude-opus-4-5-20251101", { ...OPUS, cache_read: 0.5, cache_write: 6.25, cache_write_1h: 10 });
});

describe("the gate answer's serialiser", () => {
  it("writes every conformance vector's answer, and the batch of them, as JSON.stringify does", async () => {
    let written = 0;
    for (const vector of VECTORS) {
      const answer = await answerOf(vector.inputs);
      if (answer === null) continue;
      expect(answerJson(answer)).toBe(JSON.stringify(answer));
      written += 1;
    }
    expect(written).toBeGreaterThan(300);
    const batch = await answerBatch({ items: VECTORS.slice(0, 100).map((vector) => vector.inputs) }, context());
    expect(answerJson(batch)).toBe(JSON.stringify(batch));
  }, 60_000);

  it("writes the answers of 10,000 generated requests as JSON.stringify does", async () => {
    // Half the fuzz corpus (mostly refused), half bodies the gate mostly decides.
    const bodies = [
      ...fc.sample(gateRequest, { seed: 20261202, numRuns: 5_000 }),
      ...fc.sample(acceptedGate, { seed: 20261202, numRuns: 5_000 }),
    ];
    const models = new Set<string>();
    let written = 0;
    for (const body of bodies) {
      const answer = await answerOf(JSON.parse(JSON.stringify(body)));
      if (answer === null) continue;
      expect(answerJson(answer)).toBe(JSON.stringify(answer));
      models.add((answer as { inputs: { model_name: string } }).inputs.model_name);
      written += 1;
    }
    expect(written).toBeGreaterThan(3_000);
    expect([...models].sort()).toEqual([...MODELS].sort());
  }, 120_000);

  it("writes any object as JSON.stringify does: frozen parts, NaN, -0, undefined, nested arrays, batches", () => {
    const leaf = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(Number.NaN, -0, Number.POSITIVE_INFINITY, undefined, "a − b", 'q"uote\\n'),
    );
    const flat = fc.dictionary(
      fc.string({ maxLength: 8 }),
      fc.oneof(fc.double(), fc.string(), fc.boolean(), fc.constant(null)),
      { maxKeys: 5 },
    );
    const part = fc.oneof(
      leaf,
      flat.map((value) => Object.freeze(value)),
      fc.array(leaf, { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 6 }), leaf, { maxKeys: 4 }),
    );
    const answer = fc.dictionary(fc.string({ maxLength: 10 }), part, { maxKeys: 12 });
    const batch = fc.array(fc.oneof(answer, leaf), { maxLength: 5 }).map((decisions) => ({ decisions }));
    fc.assert(
      fc.property(fc.oneof(answer, batch), (value) => {
        expect(answerJson(value)).toBe(JSON.stringify(value));
        // Twice: the second write reads the frozen parts' held text.
        expect(answerJson(value)).toBe(JSON.stringify(value));
      }),
      { seed: 20261202, numRuns: 2_000 },
    );
  }, 60_000);
});
