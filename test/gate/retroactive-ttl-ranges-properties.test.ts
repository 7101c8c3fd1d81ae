import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cacheAwareParams,
  gapReason,
  missingCachePrice,
  requestRates,
  evaluateCacheAwareGate,
  type CacheAwareInputs,
  type CachePriceRates,
  type GateOutcome,
  type PricingMode,
  type Range,
} from "../../src/gate";
import { evaluateFrozenCacheAwareGate } from "../fixtures/frozen-cache-aware";
import { RUNS, SEED, decide, mode, request, row, unit } from "./retroactive-arbitraries";

describe("entry with A = 0 is today's cache-aware answer", () => {
  it("bit for bit: every term, fire and the reason, with the new fields left out or at their defaults", () => {
    fc.assert(
      fc.property(request, row, fc.boolean(), (inputs, r, explicit) => {
        const { offload_at: _o, suffix_tokens, cache_ttl: _t, ...today } = inputs;
        const before = evaluateFrozenCacheAwareGate(today, r);
        // "entry" ignores A, so an explicit entry may carry any suffix_tokens.
        const now = explicit
          ? { ...today, offload_at: "entry" as const, suffix_tokens, cache_ttl: "5m" as const }
          : today;
        const decided = decide("cache_aware", now, r);
        // The gap rule (docs/design/economics.md §3.4) changes only the verdict on a row without a read price at q > 0.
        const gap = decided.reason_code === "pricing_incomplete";
        const params = cacheAwareParams(now);
        expect(gap).toBe(missingCachePrice(Object.values(requestRates(r, params)), params.cacheHitRate) !== null);
        for (const after of [evaluateCacheAwareGate(now, r), decided]) {
          const guessed = gap && after === decided;
          expect(after.fire).toBe(guessed ? false : before.fire);
          for (const key of [
            "net_saving_usd",
            "reprefill_saving_usd",
            "stub_carry_cost_usd",
            "expected_recall_hop_cost_usd",
            "context_premium_saving_usd",
          ] as const) {
            expect(Object.is(after[key], before[key]), key).toBe(true);
          }
          expect(after.reason).toBe(
            guessed
              ? gapReason(
                  missingCachePrice(Object.values(requestRates(r, params)), params.cacheHitRate)!,
                  params.cacheHitRate,
                  "m",
                ) + before.reason
              : before.reason,
          );
          expect(after.suffix_rewrite_cost_usd).toBe(0);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 120_000);
});

/** Two ends in [lo, hi] order, drawn from `value`. */
const rangeOf = (value: fc.Arbitrary<number>) =>
  fc.tuple(value, value).map(([a, b]): Range => (a <= b ? [a, b] : [b, a]));
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const ranges = fc
  .record({
    horizon_range: maybe(rangeOf(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 40 })))),
    recall_probability_range: maybe(rangeOf(unit)),
    cache_hit_rate_range: maybe(rangeOf(unit)),
  })
  .filter(
    (r) =>
      r.horizon_range !== undefined || r.recall_probability_range !== undefined || r.cache_hit_rate_range !== undefined,
  );

/** A point inside the box; 20 more like it are drawn per case. */
const between = (range: Range | undefined, point: number, t: number, integer: boolean) => {
  if (range === undefined) return point;
  const x = range[0] + t * (range[1] - range[0]);
  return integer ? Math.round(x) : Math.min(range[1], Math.max(range[0], x));
};

/** The corners, found independently of the core: the horizon's ends and 1 when the range reaches below it. */
function corners(m: PricingMode, inputs: CacheAwareInputs): Array<[number, number, number]> {
  const hr = inputs.horizon_range;
  const hs = hr === undefined ? [inputs.horizon] : [hr[0], hr[1], ...(hr[0] < 1 && hr[1] >= 1 ? [1] : [])];
  const ps = inputs.recall_probability_range ?? [inputs.recall_probability];
  const qs = m === "seed" ? [inputs.cache_hit_rate] : (inputs.cache_hit_rate_range ?? [inputs.cache_hit_rate]);
  return hs.flatMap((h) => ps.flatMap((p) => qs.map((q): [number, number, number] => [h, p, q])));
}

describe("robust priors", () => {
  it("never fire where the point, a corner or any of 20 interior points has net ≤ 0; fire wherever all corners pay", () => {
    const seen = { fired: 0, cornerFailed: 0 };
    fc.assert(
      fc.property(
        mode,
        request,
        ranges,
        row,
        fc.array(fc.tuple(unit, unit, unit), { minLength: 20, maxLength: 20 }),
        (m, base, box, r, interior) => {
          // Points inside their ranges, as the API requires them.
          const inputs: CacheAwareInputs = {
            ...base,
            ...box,
            horizon: between(box.horizon_range, base.horizon, 0.5, true),
            recall_probability: between(box.recall_probability_range, base.recall_probability, 0.37, false),
            cache_hit_rate: between(box.cache_hit_rate_range, base.cache_hit_rate, 0.61, false),
          };
          const { horizon_range: _h, recall_probability_range: _p, cache_hit_rate_range: _q, ...point } = inputs;
          const netAt = (h: number, p: number, q: number) =>
            decide(m, { ...point, horizon: h, recall_probability: p, cache_hit_rate: q }, r).net_saving_usd;
          const answer: GateOutcome = decide(m, inputs, r);
          const cornerNets = corners(m, inputs).map(([h, p, q]) => netAt(h, p, q));
          const pointNet = netAt(inputs.horizon, inputs.recall_probability, inputs.cache_hit_rate);
          const seedWithQOnly =
            m === "seed" && box.horizon_range === undefined && box.recall_probability_range === undefined;

          if (answer.fire) {
            seen.fired++;
            expect(pointNet).toBeGreaterThan(0);
            for (const net of cornerNets) expect(net).toBeGreaterThan(0);
            for (const [th, tp, tq] of interior) {
              const h = between(box.horizon_range, inputs.horizon, th, true);
              const p = between(box.recall_probability_range, inputs.recall_probability, tp, false);
              const q =
                m === "seed"
                  ? inputs.cache_hit_rate
                  : between(box.cache_hit_rate_range, inputs.cache_hit_rate, tq, false);
              expect(netAt(h, p, q)).toBeGreaterThan(0);
            }
          } else if (
            pointNet > 0 &&
            cornerNets.every((net) => net > 0) &&
            answer.reason_code !== "pricing_incomplete"
          ) {
            expect.fail("a box whose point and corners all pay must fire");
          }
          if (seedWithQOnly) {
            expect(answer.worst_case).toBeNull();
            return;
          }
          expect(answer.worst_case?.net_saving_usd).toBe(Math.min(pointNet, ...cornerNets));
          if (m === "seed") expect(answer.worst_case?.cache_hit_rate).toBeNull();
          else expect(typeof answer.worst_case?.cache_hit_rate).toBe("number");
          const qMax = Math.max(inputs.cache_hit_rate, ...(box.cache_hit_rate_range ?? []));
          const gapped =
            m === "cache_aware" &&
            missingCachePrice(Object.values(requestRates(r, cacheAwareParams(inputs))), qMax) !== null;
          if (gapped) expect(answer.reason_code).toBe("pricing_incomplete");
          else if (pointNet > 0 && !answer.fire) {
            seen.cornerFailed++;
            expect(answer.reason_code).toBe("worst_case_not_positive");
          } else expect(answer.reason_code).toBe(answer.fire ? "net_positive" : "net_not_positive");
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    // Not vacuous: the box both passes and fails often.
    expect(seen.fired).toBeGreaterThan(RUNS / 10);
    expect(seen.cornerFailed).toBeGreaterThan(RUNS / 20);
  }, 120_000);
});

/** The size of one unit in the last place of x. */
const ulp = (x: number) => (x === 0 ? Number.MIN_VALUE : 2 ** (Math.floor(Math.log2(Math.abs(x))) - 52));
/** A probability that is a multiple of 2⁻²⁰, so that the midpoint of two is exact. */
const grid = fc.integer({ min: 0, max: 2 ** 20 }).map((k) => k / 2 ** 20);
/**
 * The largest magnitude net is summed from: each term at its gross size, with
 * m(R) = write + q·(read − write) taken at max(read, write) (m is itself a
 * difference, so its rounding is relative to that), and the premium's and
 * the suffix rewrite's products before they are subtracted. Rounding errors
 * are relative to these, not to a small difference of them.
 */
function scale(m: PricingMode, inputs: CacheAwareInputs, r: CachePriceRates, d: GateOutcome): number {
  const terms = [d.net_saving_usd, d.reprefill_saving_usd, d.stub_carry_cost_usd, d.expected_recall_hop_cost_usd].map(
    Math.abs,
  );
  if (m === "seed") return Math.max(...terms);
  const params = cacheAwareParams(inputs);
  const { keep, stubbed } = requestRates(r, params);
  const h = params.horizon;
  const [gKeep, gStub] = [keep, stubbed].map((rates) => Math.max(rates.read, rates.write)) as [number, number];
  const [cKeep, cStub] = [h * gKeep + keep.write, h * gStub + stubbed.write];
  const { outputTokens: o, stubTokens: st, contextTokens: ctx, suffixTokens: a } = params;
  const gross = [
    o * cKeep,
    st * cStub,
    ctx * h * Math.max(gKeep, gStub),
    a * cStub,
    a * h * gKeep,
    params.recallProbability *
      (params.recallInputTokens * stubbed.write + params.recallOutputTokens * stubbed.out + (ctx + a) * gStub),
  ];
  return Math.max(...terms, ...gross);
}

describe("net is affine", () => {
  const worstUlps = { p: 0, q: 0 };
  const affine = (field: "recall_probability" | "cache_hit_rate", modes: fc.Arbitrary<PricingMode>) =>
    fc.property(modes, request, row, grid, grid, (m, inputs, r, a, b) => {
      const at = (x: number) => decide(m, { ...inputs, horizon: Math.max(1, inputs.horizon), [field]: x }, r);
      const points = [a, b, (a + b) / 2];
      const [da, db, dm] = points.map(at) as [GateOutcome, GateOutcome, GateOutcome];
      const error = Math.abs(dm.net_saving_usd - (da.net_saving_usd + db.net_saving_usd) / 2);
      const size = Math.max(
        ...points.map((x, i) =>
          scale(m, { ...inputs, horizon: Math.max(1, inputs.horizon), [field]: x }, r, [da, db, dm][i] as GateOutcome),
        ),
      );
      const key = field === "recall_probability" ? "p" : "q";
      worstUlps[key] = Math.max(worstUlps[key], error / ulp(size));
      expect(error).toBeLessThanOrEqual(4 * ulp(size));
    });

  it("in p, everything else fixed, within 4 ulps of the largest quantity it is summed from (both modes)", () => {
    fc.assert(affine("recall_probability", mode), { numRuns: RUNS, seed: SEED });
  }, 120_000);

  it("in q, everything else fixed, within 4 ulps of the largest quantity it is summed from (cache_aware)", () => {
    fc.assert(affine("cache_hit_rate", fc.constant("cache_aware")), { numRuns: RUNS, seed: SEED });
    console.log(
      `net's worst departure from affine: ${worstUlps.p.toFixed(2)} ulps in p, ${worstUlps.q.toFixed(2)} ulps in q`,
    );
  }, 120_000);
});
