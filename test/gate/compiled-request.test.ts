import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GateBatchRequestSchema } from "../../src/routes/gate/schemas/batch-schema";
import { compiledBatchEnvelope, compiledGateRequest } from "../../src/routes/gate/direct/compiled";
import { GateRequestSchema } from "../../src/routes/gate/schemas/schema";
import { VECTORS } from "../fixtures/vectors";
import { EXAMPLE_A } from "../support/helpers";
import { acceptedGate, gateRequest } from "../support/fuzz-gate-bodies";

// The validator compiled from the gate's zod schema (npm run validators)
// must give zod's verdict on every body, and hand over what zod would: the
// direct path trusts it for every body it accepts and asks zod about the rest.

const SEED = 20261202;

/** What the route sees of a value sent as JSON. */
const asSent = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? "null");

/**
 * Compiled and zod side by side on one body: the same verdict, and the same
 * data when both accept (`data`: only a body as JSON.parse makes it, with
 * Object's prototype; fast-check's records may have none, zod's copy always does).
 */
function expectZodsVerdict(body: unknown, data = true): boolean {
  const compiled = compiledGateRequest(body);
  const parsed = GateRequestSchema.safeParse(body);
  expect({ body, accepted: compiled !== undefined }).toEqual({ body, accepted: parsed.success });
  if (parsed.success && data) expect(compiled).toStrictEqual(parsed.data);
  return parsed.success;
}

// Each where a rule JSON Schema cannot say (or says differently) applies.
const EDGES: Array<[string, unknown]> = [
  ["the reserved model name", { ...EXAMPLE_A, model_name: "__proto__" }],
  ["a __proto__ key", JSON.parse('{"model_name":"gpt-5","output_tokens":20000,"__proto__":{"horizon":4}}')],
  ["a constructor key", { ...EXAMPLE_A, constructor: 1 }],
  ["a toString key", { ...EXAMPLE_A, toString: "x" }],
  ["output_tokens and output_chars both", { ...EXAMPLE_A, output_chars: 80_000 }],
  ["neither output_tokens nor output_chars", { model_name: "gpt-5" }],
  ["output_chars alone", { model_name: "gpt-5", output_chars: 80_000 }],
  ["a range the wrong way round", { ...EXAMPLE_A, horizon: undefined, horizon_range: [6, 2] }],
  ["a point outside its range", { ...EXAMPLE_A, horizon: 9, horizon_range: [2, 6] }],
  ["a probability outside its range", { ...EXAMPLE_A, recall_probability: 0.9, recall_probability_range: [0.1, 0.5] }],
  ["suffix_tokens without a retroactive offload", { ...EXAMPLE_A, suffix_tokens: 10 }],
  [
    "suffix_tokens with a retroactive offload",
    { ...EXAMPLE_A, pricing_mode: "cache_aware", offload_at: "retroactive", suffix_tokens: 10 },
  ],
  [
    "every field at once",
    {
      ...EXAMPLE_A,
      pricing_mode: "cache_aware",
      cache_hit_rate: 0.9,
      cache_hit_rate_range: [0.8, 1],
      context_tokens: 5,
      offload_at: "retroactive",
      suffix_tokens: 1,
      cache_ttl: "1h",
      horizon_range: [2, 6],
      recall_probability_range: [0.1, 0.5],
      session_id: "s:1",
      tool_name: "web/fetch",
      dry_run: false,
    },
  ],
  ["a model name ending in a newline", { ...EXAMPLE_A, model_name: "gpt-5\n" }],
  ["a model name of 129 characters", { ...EXAMPLE_A, model_name: "m".repeat(129) }],
  ["a model name of 128 characters", { ...EXAMPLE_A, model_name: "m".repeat(128) }],
  ["a model name outside ASCII", { ...EXAMPLE_A, model_name: "gpt-5\u{1F600}" }],
  ["an empty model name", { ...EXAMPLE_A, model_name: "" }],
  ["a tool name of 65 characters", { ...EXAMPLE_A, tool_name: "t".repeat(65) }],
  ["a session id with a slash", { ...EXAMPLE_A, session_id: "a/b" }],
  ["negative zero", { ...EXAMPLE_A, horizon: -0, output_tokens: -0 }],
  ["an integer past 2^53", { ...EXAMPLE_A, stub_tokens: 2 ** 53 + 2 }],
  ["a whole number past its maximum", { ...EXAMPLE_A, horizon: 1_000_001 }],
  ["a fractional token count", { ...EXAMPLE_A, output_tokens: 20_000.5 }],
  ["a fractional stub", { ...EXAMPLE_A, stub_tokens: 0.5 }],
  ["a range of three", { ...EXAMPLE_A, horizon_range: [1, 2, 3] }],
  ["a range of one", { ...EXAMPLE_A, horizon_range: [1] }],
  ["a fractional horizon range", { ...EXAMPLE_A, horizon: undefined, horizon_range: [1.5, 2] }],
  [
    "NaN and Infinity (never in JSON)",
    { ...EXAMPLE_A, output_tokens: Number.NaN, recall_probability: Number.POSITIVE_INFINITY },
  ],
  ["null for an optional field", { ...EXAMPLE_A, horizon: null }],
  ["an unknown enum value", { ...EXAMPLE_A, pricing_mode: "Seed" }],
  ["dry_run as a string", { ...EXAMPLE_A, dry_run: "true" }],
  ["an array", [EXAMPLE_A]],
  ["null", null],
  ["a string", "gpt-5"],
];

describe("the gate request's compiled validator", () => {
  it.each(EDGES)("gives zod's verdict on %s", (_name, body) => {
    expectZodsVerdict(asSent(body));
    expectZodsVerdict(body, false);
  });

  it("gives zod's verdict, and zod's data, on 10,000 bodies of the fuzz corpus as sent and as generated", () => {
    const bodies = fc.sample(gateRequest, { seed: SEED, numRuns: 10_000 });
    let accepted = 0;
    for (const body of bodies) {
      if (expectZodsVerdict(asSent(body))) accepted += 1;
      expectZodsVerdict(body, false);
    }
    // Both verdicts occur, so neither side can pass by always saying one thing.
    expect(accepted).toBeGreaterThan(300);
    expect(accepted).toBeLessThan(9_000);
  }, 60_000);

  it("gives zod's verdict, and zod's data, on 10,000 plausible bodies its cross-field rules mostly pass", () => {
    let accepted = 0;
    for (const body of fc.sample(acceptedGate, { seed: SEED, numRuns: 10_000 }))
      if (expectZodsVerdict(asSent(body))) accepted += 1;
    expect(accepted).toBeGreaterThan(7_000);
    expect(accepted).toBeLessThan(10_000);
  }, 60_000);

  it("gives zod's verdict on every conformance vector, API-valid or not", () => {
    const verdicts = VECTORS.map((vector) => expectZodsVerdict(vector.inputs));
    expect(verdicts.filter(Boolean).length).toBeGreaterThan(300);
    expect(verdicts.filter((ok) => !ok).length).toBeGreaterThan(30);
  });
});

describe("the batch envelope's compiled validator", () => {
  const envelope = fc.oneof(
    fc.record(
      { items: fc.array(gateRequest, { maxLength: 110 }), dry_run: fc.oneof(fc.boolean(), fc.jsonValue()) },
      { requiredKeys: [] },
    ),
    fc.record({ items: fc.jsonValue(), extra: fc.jsonValue() }, { requiredKeys: [] }),
    fc.jsonValue(),
  );

  it("gives zod's verdict, and zod's data, on 2,000 envelopes", () => {
    let accepted = 0;
    for (const body of fc.sample(envelope, { seed: SEED, numRuns: 2_000 }).map(asSent)) {
      const compiled = compiledBatchEnvelope(body);
      const parsed = GateBatchRequestSchema.safeParse(body);
      expect(compiled !== undefined).toBe(parsed.success);
      if (parsed.success) {
        accepted += 1;
        expect(compiled).toStrictEqual(parsed.data);
      }
    }
    expect(accepted).toBeGreaterThan(200);
    expect(accepted).toBeLessThan(1_900);
  }, 60_000);
});
