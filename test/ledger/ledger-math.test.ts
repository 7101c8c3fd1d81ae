import { describe, expect, it } from "vitest";
import {
  bucketFor,
  DECISION_ID_PATTERN,
  formatDecisionId,
  holdoutFigures,
  incompleteBeta,
  inHoldout,
  meanInterval,
  type Moments,
  normalQuantile,
  shardOfDecisionId,
  welch,
} from "../../src/ledger";
import { shardFor, unitHash } from "../../src/ledger/model/ids";
import { emptySums, mergeSums, type LedgerSums } from "../../src/ledger/stats/report";
import { studentTCdf, studentTQuantile, wilsonInterval } from "../../src/ledger/stats/stats";

const momentsOf = (values: number[]): Moments => ({
  n: values.length,
  sum: values.reduce((a, b) => a + b, 0),
  sumsq: values.reduce((a, b) => a + b * b, 0),
});

describe("Student's t and the normal quantile", () => {
  // Table values of t at 0.975 (two-sided 95%).
  const table: [number, number][] = [
    [1, 12.7062047],
    [2, 4.30265273],
    [3, 3.18244631],
    [5, 2.57058184],
    [10, 2.22813885],
    [30, 2.04227246],
    [100, 1.98397152],
    [1000, 1.96233908],
  ];
  it.each(table)("the 0.975 quantile at %d degrees of freedom matches the table", (df, t) => {
    expect(studentTQuantile(0.975, df)).toBeCloseTo(t, 5);
  });

  it("takes fractional degrees of freedom between the integer ones", () => {
    // scipy: t.ppf(0.975, 7.5) = 2.333040.
    expect(studentTQuantile(0.975, 7.5)).toBeCloseTo(2.33304, 5);
  });

  it("tends to the normal quantile, 1.959964", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(studentTQuantile(0.975, Infinity)).toBeCloseTo(1.959964, 5);
  });

  it("has a distribution function symmetric about 0 that the quantile inverts", () => {
    expect(studentTCdf(0, 4)).toBeCloseTo(0.5, 12);
    expect(studentTCdf(-2, 4) + studentTCdf(2, 4)).toBeCloseTo(1, 12);
    expect(studentTCdf(studentTQuantile(0.975, 12), 12)).toBeCloseTo(0.975, 9);
  });

  it("computes the incomplete beta at its closed forms", () => {
    // I_x(1, 1) = x; I_x(a, 1) = x^a.
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(incompleteBeta(0.5, 3, 1)).toBeCloseTo(0.125, 12);
  });
});

describe("intervals", () => {
  it("gives the textbook t interval of a mean", () => {
    // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, s = 2.138, t(7) = 2.3646.
    const { mean, ci95 } = meanInterval(momentsOf([2, 4, 4, 4, 5, 5, 7, 9]));
    expect(mean).toBe(5);
    const half = 2.3646243 * (Math.sqrt(32 / 7) / Math.sqrt(8));
    expect(ci95?.[0]).toBeCloseTo(5 - half, 6);
    expect(ci95?.[1]).toBeCloseTo(5 + half, 6);
  });

  it("gives no interval below two values", () => {
    expect(meanInterval(momentsOf([3])).ci95).toBeNull();
    expect(meanInterval(momentsOf([])).mean).toBeNull();
  });

  it("gives Wilson's interval for a proportion, inside [0, 1] even at the ends", () => {
    const [lo, hi] = wilsonInterval(80, 100) ?? [NaN, NaN];
    expect(lo).toBeCloseTo(0.7112, 4);
    expect(hi).toBeCloseTo(0.8666, 4);
    expect(wilsonInterval(0, 10)?.[0]).toBe(0);
    expect(wilsonInterval(10, 10)?.[1]).toBeCloseTo(1, 12);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("gives Welch's interval and degrees of freedom for unequal variances", () => {
    // Welch's own example shape: two samples with different spreads and sizes.
    const a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4];
    const b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4];
    const result = welch(momentsOf(a), momentsOf(b));
    // Reference: scipy's Welch test on the same samples: df 24.98853, 95% CI [-3.984096, -0.349237].
    expect(result.df).toBeCloseTo(24.98853, 4);
    expect(result.ci95?.[0]).toBeCloseTo(-3.984096, 5);
    expect(result.ci95?.[1]).toBeCloseTo(-0.349237, 5);
  });
});

describe("decision ids and shards", () => {
  it("names its shard and parses back to it", () => {
    const id = formatDecisionId(17, new Uint8Array(16).fill(171));
    expect(id).toBe(`dec_17_${"ab".repeat(16)}`);
    expect(DECISION_ID_PATTERN.test(id)).toBe(true);
    expect(shardOfDecisionId(id)).toBe(17);
  });

  it("refuses what is not a decision id", () => {
    for (const bad of [
      "",
      "dec_1_abc",
      `dec_01_${"a".repeat(32)}`,
      `dec_999_${"a".repeat(32)}`,
      `DEC_1_${"a".repeat(32)}`,
    ]) {
      expect(shardOfDecisionId(bad)).toBeNull();
    }
  });

  it("puts every decision of a session in one shard, and spreads sessions over all shards", () => {
    const random = (byte: number) => new Uint8Array(16).fill(byte);
    expect(shardFor("acme", "s-1", 8, random(1))).toBe(shardFor("acme", "s-1", 8, random(200)));
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) seen.add(shardFor("acme", `s-${i}`, 8, random(0)));
    expect(seen.size).toBe(8);
    expect(shardFor("acme", null, 8, random(13))).toBe(13 % 8);
  });

  it("hashes into [0, 1)", () => {
    for (let i = 0; i < 1_000; i++) {
      const u = unitHash(`x${i}`);
      expect(u).toBeGreaterThanOrEqual(0);
      expect(u).toBeLessThan(1);
    }
  });
});

describe("holdout assignment", () => {
  const sessions = Array.from({ length: 10_000 }, (_, i) => `session-${i}`);

  it.each([0.05, 0.1, 0.25, 0.5])("holds out close to a fraction of %s over 10,000 sessions", (fraction) => {
    const held = sessions.filter((s) => inHoldout("acme", s, fraction)).length;
    // Within 4 binomial standard deviations.
    const sd = Math.sqrt(10_000 * fraction * (1 - fraction));
    expect(Math.abs(held - 10_000 * fraction)).toBeLessThan(4 * sd);
  });

  it("is deterministic, nested as the fraction grows, and per tenant", () => {
    const first = sessions.map((s) => inHoldout("acme", s, 0.2));
    expect(sessions.map((s) => inHoldout("acme", s, 0.2))).toEqual(first);
    // A session held out at 10% stays held out at 20%.
    for (const s of sessions) if (inHoldout("acme", s, 0.1)) expect(inHoldout("acme", s, 0.2)).toBe(true);
    const other = sessions.map((s) => inHoldout("globex", s, 0.2));
    expect(other).not.toEqual(first);
  });

  it("holds nobody out at the default of 0", () => {
    expect(sessions.some((s) => inHoldout("acme", s, 0))).toBe(false);
  });
});

describe("merging shards' sums", () => {
  const shard = (over: Partial<LedgerSums>): LedgerSums => ({ ...emptySums(), ...over });

  it("adds counts and moments and matches time buckets by their start", () => {
    const a = shard({
      decisions: 3,
      fired: 2,
      sessions: momentsOf([1, 2]),
      series: [
        { start: 0, decisions: 3, fired: 2, fired_with_outcome: 1, predicted_net_usd: 0.1, realized_net_usd: 0.2 },
      ],
    });
    const b = shard({
      decisions: 1,
      sessions: momentsOf([3]),
      series: [
        { start: 60_000, decisions: 1, fired: 0, fired_with_outcome: 0, predicted_net_usd: 0, realized_net_usd: 0 },
        { start: 0, decisions: 1, fired: 1, fired_with_outcome: 1, predicted_net_usd: 0.3, realized_net_usd: 0.1 },
      ],
    });
    const merged = [a, b].reduce(mergeSums, emptySums());
    expect(merged.decisions).toBe(4);
    expect(merged.sessions).toEqual(momentsOf([1, 2, 3]));
    expect(merged.series.map((s) => s.start)).toEqual([0, 60_000]);
    expect(merged.series[0]?.decisions).toBe(4);
    expect(merged.series[0]?.predicted_net_usd).toBeCloseTo(0.4, 12);
  });

  it("gives no holdout verdict on five sessions per arm, however clear the difference (Welch's is information only)", () => {
    const rows = [5.1, 5.3, 5.2, 5.4, 5.0, 4.0, 4.2, 4.1, 3.9, 4.3].map((cost, i) => ({
      tool_name: "grep",
      session_id: `s${i}`,
      at: i,
      treated: i < 5,
      cost,
    }));
    const figures = holdoutFigures(rows, 0.5);
    const [grep] = figures.tools;
    expect(grep?.information.welch_difference_usd).toBeCloseTo(1.1, 10);
    expect(grep?.information.welch_ci95?.[0]).toBeGreaterThan(0);
    expect(grep?.verdict).toBe("inconclusive");
    expect(grep?.withheld).toBe("too_few_sessions");
    expect(figures.verdict).toBe("inconclusive");
  });

  it("picks minute buckets for a few hours, hours for a week, days beyond", () => {
    expect(bucketFor(0, 3 * 3_600_000)).toBe("minute");
    expect(bucketFor(0, 7 * 86_400_000)).toBe("hour");
    expect(bucketFor(0, 30 * 86_400_000)).toBe("day");
  });
});
