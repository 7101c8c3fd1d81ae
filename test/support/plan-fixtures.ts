import fc from "fast-check";
import { planModel, planTerms, type CachePriceRates, type PlanInputs, type PlanSegment } from "../../src/gate";
import { WORKED_EXAMPLE_P1 } from "../../src/routes/plan/schema";

/**
 * Worked example P1 of docs/design/plan.md §4 as the core takes it: the documented request
 * (claude-opus-4-6, h = 4, q = 0.9) with the defaults the route fills in.
 */
export const P1: PlanInputs = {
  ...WORKED_EXAMPLE_P1,
  recall_probability: 0.25,
  stub_tokens: 200,
  recall_input_tokens: 2_000,
  recall_output_tokens: 500,
};

/**
 * The best net over every non-empty subset of the eligible candidates, each
 * priced by `planTerms`, and 0 for the empty plan: the answer the search must
 * match.
 */
export function bruteForceNet(inputs: PlanInputs, row: CachePriceRates): number {
  const model = planModel(inputs, row);
  const n = model.candidates.length;
  let best = 0;
  const members: number[] = [];
  for (let mask = 1; mask < 1 << n; mask++) {
    members.length = 0;
    for (let i = 0; i < n; i++) if (mask & (1 << i)) members.push(i);
    const net = planTerms(model, members).net;
    if (net > best) best = net;
  }
  return best;
}

const price = fc.double({ min: 0.05, max: 50, noNaN: true, noDefaultInfinity: true });
const factor = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

/** Rows like real ones: cache prices as factors of input (sometimes missing), a 1-hour write sometimes. */
const rowParts = fc.record({
  input: price,
  outFactor: factor(1, 8),
  read: fc.option(factor(0.05, 1), { nil: undefined }),
  write: fc.option(factor(1, 2), { nil: undefined }),
  write1h: fc.option(factor(1.5, 3), { nil: undefined }),
});

/** A row without a long-context tier. */
export const untieredRow: fc.Arbitrary<CachePriceRates> = rowParts.map((r) => ({
  input: r.input,
  output: r.input * r.outFactor,
  ...(r.read === undefined ? {} : { cache_read: r.input * r.read }),
  ...(r.write === undefined ? {} : { cache_write: r.input * r.write }),
  ...(r.write1h === undefined ? {} : { cache_write_1h: r.input * r.write1h }),
}));

// fast-check's doubles crowd the ends of [0, 1]; mix in evenly spread hundredths.
const probability = fc.oneof(
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.integer({ min: 0, max: 100 }).map((x) => x / 100),
);

/** One history segment: fixed context, or a candidate with its own p and stub size now and then. */
const segment = fc.oneof(
  fc.record({ tokens: fc.integer({ min: 0, max: 60_000 }) }),
  fc.record(
    {
      candidate: fc.constant(true),
      tokens: fc.oneof(fc.integer({ min: 0, max: 120_000 }), fc.integer({ min: 9_000, max: 40_000 })),
      recall_probability: probability,
      stub_tokens: fc.integer({ min: 0, max: 3_000 }),
    },
    { requiredKeys: ["candidate", "tokens"] },
  ),
);

/** A plan request with up to `maxCandidates` candidates (ids c0, c1, … in history order). */
export function planRequest(maxCandidates: number): fc.Arbitrary<PlanInputs> {
  return fc
    .record({
      segments: fc.array(segment, { minLength: 1, maxLength: maxCandidates * 2 }),
      horizon: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 6 })),
      recall_probability: probability,
      cache_hit_rate: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(0, 0.9, 1)),
      cache_ttl: fc.constantFrom("5m" as const, "1h" as const),
      large_offload_threshold_tokens: fc.constantFrom(0, 5_000, 10_000, 20_000),
      stub_tokens: fc.integer({ min: 0, max: 2_000 }),
      recall_input_tokens: fc.integer({ min: 0, max: 20_000 }),
      recall_output_tokens: fc.integer({ min: 0, max: 5_000 }),
    })
    .map(({ segments, ...rest }) => {
      let next = 0;
      const numbered = segments.map((s): PlanSegment => {
        if (!("candidate" in s) || next >= maxCandidates) return { tokens: s.tokens };
        const { candidate: _candidate, ...fields } = s;
        return { ...fields, id: `c${next++}` };
      });
      return { model_name: "m", ...rest, segments: numbered };
    });
}

/**
 * A row with a long-context tier whose threshold falls inside the history,
 * so stubbing can move a request across it; the tier dearer or (rarely, as
 * a check on the search's generality) cheaper than the base.
 */
export function tieredCase(maxCandidates: number): fc.Arbitrary<{ inputs: PlanInputs; row: CachePriceRates }> {
  return fc
    .record({
      inputs: planRequest(maxCandidates),
      row: untieredRow,
      at: fc.double({ min: 0.2, max: 1.05, noNaN: true }),
      tierFactor: fc.constantFrom(1.5, 2, 2, 3, 0.7),
      outFactor: fc.constantFrom(1, 1.5),
    })
    .map(({ inputs, row, at, tierFactor, outFactor }) => {
      const total = inputs.segments.reduce((sum, s) => sum + s.tokens, 0);
      const scaled = (price: number | undefined) => (price === undefined ? undefined : price * tierFactor);
      const tier = {
        threshold_tokens: Math.floor(total * at),
        input: scaled(row.input),
        output: (row.output ?? 0) * outFactor,
        ...(row.cache_read === undefined ? {} : { cache_read: scaled(row.cache_read) }),
        ...(row.cache_write === undefined ? {} : { cache_write: scaled(row.cache_write) }),
      };
      return { inputs, row: { ...row, long_context: tier } };
    });
}
