import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_BLOB_BYTES_TOTAL, MAX_DOUBLES, toDataPoint, truncateUtf8, type DecisionRecord } from "../../src/analytics";
import type { GateOutcome } from "../../src/gate";
import { R1 } from "../fixtures/cache-aware-examples";
import { EXAMPLE_A, OPUS, postGate, putRow, resetState } from "../support/helpers";

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => vi.restoreAllMocks());

describe("the Analytics Engine data point", () => {
  it("is written once per decision, in the documented layout", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    await postGate(EXAMPLE_A);
    expect(write).toHaveBeenCalledTimes(1);
    expect(write.mock.calls[0]?.[0]).toEqual({
      indexes: ["default"],
      blobs: [
        "claude-opus-4-6",
        "claude-opus-4-6",
        "net_positive",
        "seed",
        "",
        "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
        // blob7–9: the decision id, then the tool and session (none sent).
        expect.stringMatching(/^dec_\d+_[0-9a-f]{32}$/),
        "",
        "",
        // blob10–12: placement and TTL ("" in seed mode), "ranged" when ranges were given.
        ...["", "", ""],
        // blob13: the requested model's lifecycle ("" for a row without dates).
        "",
        // blob14: the scheduled price change in force ("" for the row's own prices).
        "",
        // blob15–17: where h, p and q came from (request, learned or config).
        ...["request", "request", "config"],
      ],
      doubles: [
        ...[1, 0.38925000000000004, 0.4, 0.004, 0.00675, 20_000, 4, 0.3, 10_000, 200, 2_000, 500, 0],
        // double14–18: context premium, q and P (0 in seed mode), then the two break-evens.
        ...[0, 0, 0, 1, 10_000],
        // double19: the verdict outside the holdout.
        1,
        // double20: the suffix rewrite (0 on entry and in seed mode).
        0,
      ],
    });
  });

  it("records placement, TTL, the suffix rewrite and the worst corner of a ranged cache-aware decision", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const res = await postGate({
      ...R1,
      pricing_mode: "cache_aware",
      cache_ttl: "1h",
      recall_probability_range: [0.2, 0.4],
    });
    const answer = await res.json<GateOutcome>();
    const point = write.mock.calls[0]?.[0] as AnalyticsEngineDataPoint;
    expect(point.blobs?.slice(2, 4)).toEqual(["net_not_positive", "cache_aware"]);
    expect(point.blobs?.slice(9, 12)).toEqual(["retroactive", "1h", "ranged"]);
    expect(point.blobs?.[5]).toContain("; worst=$");
    expect(point.doubles).toHaveLength(MAX_DOUBLES);
    expect(point.doubles?.[19]).toBe(answer.suffix_rewrite_cost_usd);
    expect(answer.suffix_rewrite_cost_usd).toBeGreaterThan(0);
  });

  it("records decisions that do not fire, with their reason code", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    await postGate({ ...EXAMPLE_A, model_name: "mystery-model-9" });
    await postGate({ ...EXAMPLE_A, output_tokens: 10 });
    const points = write.mock.calls.map(([point]) => point);
    expect(points.map((point) => point?.blobs?.[2])).toEqual(["unpriced", "below_threshold"]);
    expect(points.map((point) => point?.doubles?.[0])).toEqual([0, 0]);
  });

  it("still answers when the write throws", async () => {
    vi.spyOn(env.DECISIONS, "writeDataPoint").mockImplementation(() => {
      throw new Error("Analytics Engine is down");
    });
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const res = await postGate(EXAMPLE_A);
    expect(res.status).toBe(200);
    expect((await res.json<{ fire: boolean }>()).fire).toBe(true);
  });
});

describe("toDataPoint", () => {
  const record = (tenant: string, reason: string): DecisionRecord => ({
    tenant,
    model_name: "m",
    priced_as: null,
    pricing_mode: "seed",
    stale_age_seconds: null,
    lifecycle: "retired",
    decision: {
      fire: false,
      net_saving_usd: 0,
      reprefill_saving_usd: 0,
      stub_carry_cost_usd: 0,
      expected_recall_hop_cost_usd: 0,
      reason,
      reason_code: "unpriced",
      pricing_mode: "seed",
      context_premium_saving_usd: 0,
      suffix_rewrite_cost_usd: 0,
      break_even_horizon: null,
      break_even_output_tokens: null,
      worst_case: null,
    },
    inputs: {
      output_tokens: 1,
      horizon: 1,
      recall_probability: 0,
      large_offload_threshold_tokens: 0,
      stub_tokens: 0,
      recall_input_tokens: 0,
      recall_output_tokens: 0,
    },
  });
  const bytes = (text: string) => new TextEncoder().encode(text).length;

  it("keeps the index within 96 bytes without splitting a character", () => {
    const point = toDataPoint(record("é".repeat(60), "r"));
    const index = point.indexes?.[0] as string;
    expect(bytes(index)).toBeLessThanOrEqual(96);
    expect(index).toBe("é".repeat(48));
  });

  it("keeps the blobs within 16 KB in all, shortening the reason", () => {
    const long = record("t", "模".repeat(10_000));
    const point = toDataPoint({ ...long, inputs: { ...long.inputs, offload_at: "retroactive", cache_ttl: "1h" } });
    const blobs = point.blobs as string[];
    expect(blobs.reduce((sum, blob) => sum + bytes(blob), 0)).toBeLessThanOrEqual(MAX_BLOB_BYTES_TOTAL);
    expect(blobs[0]).toBe("m");
    // The blobs after the reason keep their values: only the reason is shortened.
    expect(blobs.slice(9)).toEqual(["retroactive", "1h", "", "retired", "", "", "", ""]);
  });

  it("truncates UTF-8 on a character boundary", () => {
    expect(truncateUtf8("a🙂b", 4)).toBe("a");
    expect(truncateUtf8("a🙂b", 5)).toBe("a🙂");
    expect(truncateUtf8("short", 96)).toBe("short");
  });
});
