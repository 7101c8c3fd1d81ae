import { describe, expect, it } from "vitest";
import {
  breakEven,
  decideOutcome,
  evaluateCacheAwareGate,
  priorBox,
  rangeMidpoint,
  ratesAt,
  type CacheAwareInputs,
  type CachePriceRates,
  type PricingMode,
} from "../../src/gate";
import { B1, B1_POINT, EXAMPLE_1, R1, R1_IN_PLACE, R2, T1 } from "../fixtures/cache-aware-examples";
import { OPUS, SONNET_45 } from "../fixtures/rows";

const priced = (row: CachePriceRates) => ({ status: "priced" as const, row, canonical: "claude-opus-4-6" });
const decide = (inputs: CacheAwareInputs, mode: PricingMode = "cache_aware", row: CachePriceRates = OPUS) =>
  decideOutcome(mode, inputs, priced(row));

describe("the worked examples of retroactive offload, the 1-hour cache and ranges, in the core", () => {
  it("R1: stubbing a cached output with 30,000 cached tokens after it loses $0.10767 and does not fire, its recall appended", () => {
    const d = decide(R1);
    expect(d.fire).toBe(false);
    expect(d.suffix_rewrite_cost_usd).toBeCloseTo(0.15525, 12);
    // 0.3 · (0.0125 + 0.0125 + (60,000 + 30,000) · 1.075e-6): the whole history before the recall is read.
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.036525, 12);
    expect(d.net_saving_usd).toBeCloseTo(-0.10767, 12);
    expect(d.reason).toBe(
      "net=$-0.1077 (saving=$0.0860 + premium=$0.0000 − stub=$0.0019 − recall=$0.0365 − suffix=$0.1553); " +
        "H=4 p_recall=0.30 q=0.90 context=60000 offload_at=retroactive suffix=30000 tier=none mode=cache_aware model=claude-opus-4-6",
    );
  });

  it("R1 in place: the same stub loses $0.154245 when the recall restores the original where the stub stood", () => {
    const d = decide(R1_IN_PLACE);
    expect(d.fire).toBe(false);
    expect(d.reason_code).toBe("net_not_positive");
    expect(d.reprefill_saving_usd).toBeCloseTo(0.086, 12);
    expect(d.suffix_rewrite_cost_usd).toBeCloseTo(0.15525, 12);
    expect(d.stub_carry_cost_usd).toBeCloseTo(0.001895, 12);
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.0831, 12);
    expect(d.context_premium_saving_usd).toBe(0);
    expect(d.net_saving_usd).toBeCloseTo(-0.154245, 12);
    expect(d.worst_case).toBeNull();
    expect(d.reason).toBe(
      "net=$-0.1542 (saving=$0.0860 + premium=$0.0000 − stub=$0.0019 − recall=$0.0831 − suffix=$0.1553); " +
        "H=4 p_recall=0.30 q=0.90 context=60000 offload_at=retroactive suffix=30000 recall_placement=in_place tier=none mode=cache_aware model=claude-opus-4-6",
    );
    // On entry the same output fires.
    expect(decide(EXAMPLE_1).net_saving_usd).toBeCloseTo(0.160755, 12);
  });

  it("R2: stubbing a cached output with nothing cached after it saves $0.057255 and fires", () => {
    const d = decide(R2);
    expect(d.fire).toBe(true);
    expect(d.reason_code).toBe("net_positive");
    expect(d.reprefill_saving_usd).toBeCloseTo(0.086, 12);
    expect(d.suffix_rewrite_cost_usd).toBe(0);
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.02685, 12);
    expect(d.net_saving_usd).toBeCloseTo(0.057255, 12);
    expect(d.reason).toContain("− recall=$0.0268 − suffix=$0.0000); ");
    expect(d.reason).toContain(" offload_at=retroactive suffix=0 tier=none ");
  });

  it("T1: with the 1-hour cache example 1 saves $0.24828 and fires", () => {
    const d = decide(T1);
    expect(d.fire).toBe(true);
    expect(d.reprefill_saving_usd).toBeCloseTo(0.287, 12);
    expect(d.stub_carry_cost_usd).toBeCloseTo(0.00287, 12);
    expect(d.expected_recall_hop_cost_usd).toBeCloseTo(0.03585, 12);
    expect(d.suffix_rewrite_cost_usd).toBe(0);
    expect(d.net_saving_usd).toBeCloseTo(0.24828, 12);
    expect(d.reason).toMatch(/ tier=none ttl=1h mode=cache_aware model=claude-opus-4-6$/);
  });

  it("B1: the point q = 0.9 fires, but the corner q = 0.8 of [0.8, 1.0] loses $0.01828, so it does not", () => {
    const point = decide(B1_POINT);
    expect(point.fire).toBe(true);
    expect(point.net_saving_usd).toBeCloseTo(0.009435, 12);
    expect(decide({ ...B1_POINT, cache_hit_rate: 0.5 }).net_saving_usd).toBeCloseTo(-0.1014, 4);
    expect(decide({ ...B1_POINT, cache_hit_rate: 0.8 }).net_saving_usd).toBeCloseTo(-0.01828, 12);

    const d = decide(B1);
    expect(d.fire).toBe(false);
    expect(d.reason_code).toBe("worst_case_not_positive");
    // The point's own terms are still the answer's terms.
    expect(d.net_saving_usd).toBe(point.net_saving_usd);
    expect(d.worst_case).toEqual({
      net_saving_usd: expect.closeTo(-0.01828, 12),
      horizon: 2,
      recall_probability: 0.5,
      cache_hit_rate: 0.8,
    });
    expect(d.reason).toBe(`${point.reason}; worst=$-0.0183 at H=2 p_recall=0.50 q=0.80`);
  });
});

describe("retroactive offload", () => {
  it("prices the keep request at P + O + A and the stub request at P + S + A, so the suffix can cross a tier", () => {
    // sonnet-4-5: 150,000 + 20,000 + 40,000 = 210,000 is in the tier; 150,000 + 200 + 40,000 is not.
    const inputs = {
      ...EXAMPLE_1,
      model_name: "claude-sonnet-4-5",
      horizon: 8,
      context_tokens: 150_000,
      offload_at: "retroactive" as const,
      suffix_tokens: 40_000,
    };
    const d = decide(inputs, "cache_aware", SONNET_45);
    expect(d.reason).toContain(" tier=keep ");
    const mKeep = 0.9 * 0.6e-6 + 0.1 * 7.5e-6;
    const mStub = 0.9 * 0.3e-6 + 0.1 * 3.75e-6;
    expect(d.suffix_rewrite_cost_usd).toBeCloseTo(40_000 * (3.75e-6 + 7 * mStub - 8 * mKeep), 15);
    // Over 8 turns, dropping out of the tier makes the rewrite cheaper than keeping: a negative cost.
    expect(d.suffix_rewrite_cost_usd).toBeLessThan(0);
    expect(d.context_premium_saving_usd).toBeCloseTo(150_000 * 8 * (mKeep - mStub), 15);
  });

  it("ignores suffix_tokens on entry: the suffix is not rewritten when the stub goes in first", () => {
    const d = decide({ ...EXAMPLE_1, offload_at: "entry", suffix_tokens: 30_000 });
    expect(d).toEqual(decide(EXAMPLE_1));
    expect(d.suffix_rewrite_cost_usd).toBe(0);
  });

  it("costs nothing and saves nothing at horizon 0", () => {
    const d = decide({ ...R1, horizon: 0 });
    expect(d.reprefill_saving_usd).toBe(0);
    expect(d.suffix_rewrite_cost_usd).toBe(0);
    expect(d.fire).toBe(false);
  });
});

describe("the 1-hour cache write", () => {
  const sonnetWith1h: CachePriceRates = {
    ...SONNET_45,
    cache_write_1h: 6,
    long_context: { ...SONNET_45.long_context, cache_write_1h: 12 },
  };

  it("takes the tier's cache_write_1h, then the row's, then the resolved 5-minute write", () => {
    expect(ratesAt(sonnetWith1h, 210_000, "1h").write).toBe(12 / 1e6);
    expect(ratesAt(SONNET_45 as CachePriceRates, 210_000, "1h").write).toBe(7.5 / 1e6); // no 1h price anywhere: the tier's 5m write
    expect(ratesAt({ ...SONNET_45, cache_write_1h: 6 }, 210_000, "1h").write).toBe(6 / 1e6); // the tier has none: the row's
    expect(ratesAt(sonnetWith1h, 100_000, "1h").write).toBe(6 / 1e6);
    expect(ratesAt(sonnetWith1h, 100_000, "5m").write).toBe(3.75 / 1e6);
    // OpenAI has no write premium and no 1-hour price: the write is the input price either way.
    expect(ratesAt({ input: 1.25, output: 10, cache_read: 0.125 }, 0, "1h").write).toBe(1.25 / 1e6);
  });

  it("changes nothing for a row without a 1-hour price and without a write premium", () => {
    const gpt5 = { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 };
    const fiveMinutes = evaluateCacheAwareGate(EXAMPLE_1, gpt5);
    const oneHour = evaluateCacheAwareGate({ ...EXAMPLE_1, cache_ttl: "1h" }, gpt5);
    expect(oneHour.net_saving_usd).toBe(fiveMinutes.net_saving_usd);
    expect(oneHour.reason).toBe(fiveMinutes.reason.replace(" mode=", " ttl=1h mode="));
  });
});

describe("prior ranges", () => {
  it("leave every field as it was, and worst_case null, when none is given, in both modes", () => {
    for (const mode of ["seed", "cache_aware"] as const) {
      const d = decide(EXAMPLE_1, mode);
      expect(d.worst_case).toBeNull();
      expect(d.reason).not.toContain("worst=");
    }
  });

  it("fire in seed mode only if every corner of horizon and recall ranges pays, and name the worst one", () => {
    const inputs = {
      ...EXAMPLE_1,
      horizon: 4,
      horizon_range: [1, 6] as const,
      recall_probability_range: [0.1, 0.5] as const,
    };
    const d = decide(inputs, "seed");
    expect(d.fire).toBe(true);
    expect(d.reason_code).toBe("net_positive");
    // The seed's worst corner: one turn, the likeliest recall. The seed has no q.
    expect(d.worst_case).toEqual({
      net_saving_usd: 20_000 * 5e-6 - (200 * 5e-6 + 0.5 * (2_000 * 5e-6 + 500 * 25e-6)),
      horizon: 1,
      recall_probability: 0.5,
      cache_hit_rate: null,
    });
    expect(d.reason).toMatch(/^net=\$0\.3893 .* model=claude-opus-4-6; worst=\$0\.0878 at H=1 p_recall=0\.50$/);
  });

  it("never fire with a horizon range that reaches 0, where nothing is carried and a recall costs", () => {
    const d = decide({ ...EXAMPLE_1, horizon_range: [0, 8] });
    expect(d.fire).toBe(false);
    expect(d.reason_code).toBe("worst_case_not_positive");
    expect(d.worst_case).toMatchObject({ horizon: 0, recall_probability: 0.3, cache_hit_rate: 0.9 });
    expect(d.worst_case?.net_saving_usd).toBeCloseTo(-0.02685, 12);
  });

  it("report net_not_positive, not the worst case, when the point itself does not pay", () => {
    const d = decide({ ...B1_POINT, cache_hit_rate: 0.8, cache_hit_rate_range: [0.8, 1] });
    expect(d.fire).toBe(false);
    expect(d.reason_code).toBe("net_not_positive");
    expect(d.worst_case?.cache_hit_rate).toBe(0.8);
  });

  it("check the horizons {lo, max(lo, 1), hi}, each probability's two ends, and no q in seed mode", () => {
    const point = { horizon: 3, recallProbability: 0.3, cacheHitRate: 0.9 };
    expect(priorBox("cache_aware", { horizon_range: [0, 6] }, point)).toEqual({
      horizons: [0, 1, 6],
      recallProbabilities: [0.3],
      cacheHitRates: [0.9],
    });
    expect(priorBox("cache_aware", { horizon_range: [2, 2], cache_hit_rate_range: [0.5, 1] }, point)).toEqual({
      horizons: [2],
      recallProbabilities: [0.3],
      cacheHitRates: [0.5, 1],
    });
    expect(priorBox("seed", { recall_probability_range: [0.1, 0.4], cache_hit_rate_range: [0, 1] }, point)).toEqual({
      horizons: [3],
      recallProbabilities: [0.1, 0.4],
      cacheHitRates: null,
    });
    expect(priorBox("seed", { cache_hit_rate_range: [0, 1] }, point)).toBeNull();
    expect(priorBox("cache_aware", {}, point)).toBeNull();
  });

  it("stand for their midpoint when the point is left out, the horizon's rounded down", () => {
    expect(rangeMidpoint([2, 7], true)).toBe(4);
    expect(rangeMidpoint([0, 0], true)).toBe(0);
    expect(rangeMidpoint([0.8, 1], false)).toBeCloseTo(0.9, 15);
    expect(rangeMidpoint([0.2, 0.2], false)).toBe(0.2);
  });
});

describe("break-evens on the new inputs", () => {
  it("R1 would pay from 10 turns on (12 in place): the suffix rewrite is paid once, the carry saving every turn", () => {
    // net(1) = 0.0215 − 0.15525 − 0.00125 − recall; each turn adds (O − S)·m = 0.021285. Appended, the hop reads
    // the history: 0.3 · (0.025 + 90,000 · 1.075e-6) = 0.036525; in place it writes the 30,000 tokens after the stub:
    // 0.3 · (0.025 + 60,000 · 1.075e-6 + 30,000 · 6.25e-6) = 0.0831.
    for (const [inputs, horizon] of [
      [R1, 10],
      [R1_IN_PLACE, 12],
    ] as const) {
      const { break_even_horizon } = breakEven("cache_aware", inputs, OPUS);
      expect(break_even_horizon).toBe(horizon);
      expect(decide({ ...inputs, horizon }).fire).toBe(true);
      expect(decide({ ...inputs, horizon: horizon - 1 }).fire).toBe(false);
    }
  });

  it("with a zero slope (cache_read 0 and q = 1) say 1 exactly when the decision fires at h = 1", () => {
    const free = { ...OPUS, cache_read: 0 };
    for (const inputs of [
      { ...EXAMPLE_1, cache_hit_rate: 1 },
      { ...R2, cache_hit_rate: 1 },
      { ...R1, cache_hit_rate: 1, suffix_tokens: 1_000 },
      { ...R1, cache_hit_rate: 1 },
    ]) {
      const firesAt1 = decide({ ...inputs, horizon: 1 }, "cache_aware", free).fire;
      const { break_even_horizon } = breakEven("cache_aware", inputs, free);
      expect(break_even_horizon).toBe(firesAt1 ? 1 : null);
      // Net does not move with h here: the decision at the point agrees.
      expect(decide(inputs, "cache_aware", free).fire).toBe(firesAt1);
    }
  });
});
