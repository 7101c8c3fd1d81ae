import { beforeEach, describe, expect, it } from "vitest";
import { decideOutcome, type CacheAwareInputs } from "../../../src/gate";
import { B1, B1_POINT, EXAMPLE_1, R1, R1_IN_PLACE, R2, T1 } from "../../fixtures/cache-aware-examples";
import { postGate, postJson, putRow, resetState } from "../../support/helpers";
import { OPUS } from "../../fixtures/rows";
import { VECTOR_PRICING, VECTORS } from "../../fixtures/vectors";

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

const cacheAware = (inputs: object) => ({ ...inputs, pricing_mode: "cache_aware" });
const decided = async (body: object) => {
  const res = await postGate(body);
  expect(res.status).toBe(200);
  return res.json<any>();
};
const refused = async (body: object) => {
  const res = await postGate(body);
  expect(res.status).toBe(400);
  return (await res.json<any>()).error as {
    code: string;
    message: string;
    issues: { path: string; message: string }[];
  };
};
/** The core's answer for the same inputs: the route must add nothing to the economics. */
const core = (inputs: CacheAwareInputs) =>
  decideOutcome("cache_aware", inputs, { status: "priced", row: OPUS, canonical: "claude-opus-4-6" });
const TERMS = [
  "fire",
  "net_saving_usd",
  "reprefill_saving_usd",
  "stub_carry_cost_usd",
  "expected_recall_hop_cost_usd",
  "reason",
  "reason_code",
  "context_premium_saving_usd",
  "suffix_rewrite_cost_usd",
  "break_even_horizon",
  "break_even_output_tokens",
  "worst_case",
] as const;
const pick = (answer: object) =>
  Object.fromEntries(TERMS.map((key) => [key, (answer as Record<string, unknown>)[key]]));

describe("the worked examples of retroactive offload, the 1-hour cache and ranges, over HTTP", () => {
  it("R1: a retroactive stub with 30,000 cached tokens after it loses $0.10767 and does not fire, its recall appended", async () => {
    const body = await decided(cacheAware(R1));
    expect(body.fire).toBe(false);
    expect(body.net_saving_usd).toBeCloseTo(-0.10767, 12);
    expect(body.expected_recall_hop_cost_usd).toBeCloseTo(0.036525, 12);
    expect(body.inputs.recall_placement).toBe("append");
    expect(pick(body)).toEqual(pick(core(R1)));
  });

  it("R1 in place: the same stub loses $0.154245 when the recall restores the original where the stub stood", async () => {
    const body = await decided(cacheAware(R1_IN_PLACE));
    expect(body.fire).toBe(false);
    expect(body.net_saving_usd).toBeCloseTo(-0.154245, 12);
    expect(body.expected_recall_hop_cost_usd).toBeCloseTo(0.0831, 12);
    expect(body.reason).toContain(" recall_placement=in_place ");
    expect(body.suffix_rewrite_cost_usd).toBeCloseTo(0.15525, 12);
    expect(body.reason).toContain("− suffix=$0.1553); ");
    expect(body.inputs).toMatchObject({
      offload_at: "retroactive",
      suffix_tokens: 30_000,
      cache_ttl: "5m",
      recall_placement: "in_place",
      cache_hit_rate: 0.9,
    });
    expect(pick(body)).toEqual(pick(core(R1_IN_PLACE)));
  });

  it("R2: a retroactive stub with nothing cached after it saves $0.057255 and fires", async () => {
    const body = await decided(cacheAware(R2));
    expect(body.fire).toBe(true);
    expect(body.net_saving_usd).toBeCloseTo(0.057255, 12);
    expect(body.suffix_rewrite_cost_usd).toBe(0);
    expect(pick(body)).toEqual(pick(core(R2)));
  });

  it("T1: example 1 with the 1-hour cache saves $0.24828 and fires", async () => {
    const body = await decided(cacheAware(T1));
    expect(body.fire).toBe(true);
    expect(body.net_saving_usd).toBeCloseTo(0.24828, 12);
    expect(body.reprefill_saving_usd).toBeCloseTo(0.287, 12);
    expect(body.inputs.cache_ttl).toBe("1h");
    expect(pick(body)).toEqual(pick(core(T1)));
  });

  it("B1: q = 0.9 in [0.8, 1.0] does not fire, because the corner q = 0.8 loses $0.01828", async () => {
    const point = await decided(cacheAware(B1_POINT));
    expect(point.fire).toBe(true);
    const body = await decided(cacheAware(B1));
    expect(body).toMatchObject({ fire: false, reason_code: "worst_case_not_positive" });
    expect(body.worst_case).toEqual({
      net_saving_usd: expect.closeTo(-0.01828, 12),
      horizon: 2,
      recall_probability: 0.5,
      cache_hit_rate: 0.8,
    });
    expect(body.inputs.cache_hit_rate_range).toEqual([0.8, 1]);
    expect(pick(body)).toEqual(pick(core(B1)));
  });

  it("decides all four in one batch, in order, as the single route does", async () => {
    const res = await postJson("/v1/gate/batch", { items: [R1, R2, T1, B1].map(cacheAware) });
    expect(res.status).toBe(200);
    const { decisions } = await res.json<{ decisions: any[] }>();
    expect(decisions.map((d) => [d.fire, d.reason_code])).toEqual([
      [false, "net_not_positive"],
      [true, "net_positive"],
      [true, "net_positive"],
      [false, "worst_case_not_positive"],
    ]);
    expect(decisions.map(pick)).toEqual([R1, R2, T1, B1].map((inputs) => pick(core(inputs))));
  });
});

describe("POST /v1/gate/curve with the new fields", () => {
  it("answers R1 and B1 along the horizon exactly as the gate does at each point", async () => {
    for (const inputs of [R1, B1]) {
      const request = cacheAware(inputs);
      const res = await postJson("/v1/gate/curve", { request });
      expect(res.status).toBe(200);
      const curve = await res.json<{ horizon: { x: number; net_saving_usd: number; reason_code: string }[] }>();
      const xs = curve.horizon.map((point) => point.x).slice(0, 12);
      const batch = await postJson("/v1/gate/batch", { items: xs.map((horizon) => ({ ...request, horizon })) });
      const { decisions } = await batch.json<{ decisions: any[] }>();
      expect(
        curve.horizon.slice(0, 12).map(({ net_saving_usd, reason_code }) => ({ net_saving_usd, reason_code })),
      ).toEqual(decisions.map(({ net_saving_usd, reason_code }) => ({ net_saving_usd, reason_code })));
    }
  });
});

describe("the new fields' validation", () => {
  it("refuses offload_at, suffix_tokens, cache_ttl, recall_placement and cache_hit_rate_range in seed mode, naming each", async () => {
    const error = await refused({
      ...EXAMPLE_1,
      context_tokens: undefined,
      cache_hit_rate: undefined,
      pricing_mode: "seed",
      offload_at: "retroactive",
      suffix_tokens: 10,
      cache_ttl: "1h",
      recall_placement: "append",
      cache_hit_rate_range: [0.5, 1],
    });
    expect(error.issues.map((issue) => issue.path)).toEqual([
      "offload_at",
      "suffix_tokens",
      "cache_ttl",
      "recall_placement",
      "cache_hit_rate_range",
    ]);
    expect(error.issues[0]?.message).toBe('only applies when pricing_mode is "cache_aware"; pricing_mode is "seed"');
  });

  it("refuses suffix_tokens without offload_at retroactive", async () => {
    for (const offload_at of [undefined, "entry"]) {
      const error = await refused(cacheAware({ ...EXAMPLE_1, offload_at, suffix_tokens: 0 }));
      expect(error.issues).toEqual([
        { path: "suffix_tokens", message: 'only applies when offload_at is "retroactive"' },
      ]);
    }
  });

  it("refuses an unknown placement or TTL, naming the values it takes", async () => {
    expect((await refused(cacheAware({ ...EXAMPLE_1, offload_at: "later" }))).message).toBe(
      'offload_at must be "entry" or "retroactive"',
    );
    expect((await refused(cacheAware({ ...R1, recall_placement: "restore" }))).message).toBe(
      'recall_placement must be "append" or "in_place"',
    );
    expect((await refused(cacheAware({ ...EXAMPLE_1, cache_ttl: "45m" }))).message).toBe(
      'cache_ttl must be "5m" or "1h" or "in_memory" or "24h" or "implicit" or "30m"',
    );
  });

  it("refuses a range out of order, out of bounds, of the wrong shape, or a point outside its range", async () => {
    const cases: Array<[object, string, string]> = [
      [{ horizon_range: [6, 2] }, "horizon_range", "must be [lo, hi] with lo ≤ hi; got [6, 2]"],
      [{ recall_probability_range: [0.2, 1.5] }, "recall_probability_range.1", "must hold two numbers between 0 and 1"],
      [{ horizon_range: [1.5, 3] }, "horizon_range.0", "must hold two integers between 0 and 1000000"],
      [{ cache_hit_rate_range: [0.5] }, "cache_hit_rate_range", "must be [lo, hi]: two numbers between 0 and 1"],
      [{ horizon: 9, horizon_range: [2, 6] }, "horizon", "must lie within horizon_range [2, 6]"],
      [
        { recall_probability: 0.1, recall_probability_range: [0.2, 0.4] },
        "recall_probability",
        "must lie within recall_probability_range [0.2, 0.4]",
      ],
      [
        { cache_hit_rate: 0.9, cache_hit_rate_range: [0.5, 0.8] },
        "cache_hit_rate",
        "must lie within cache_hit_rate_range [0.5, 0.8]",
      ],
    ];
    for (const [fields, path, message] of cases) {
      const error = await refused(cacheAware({ ...EXAMPLE_1, ...fields }));
      expect(error.issues.find((issue) => issue.path === path)?.message, path).toBe(message);
    }
  });

  it("takes a range's midpoint for a point left out: the horizon's rounded down, p's and q's exact", async () => {
    const { horizon: _h, recall_probability: _p, cache_hit_rate: _q, ...rest } = EXAMPLE_1;
    const body = await decided(
      cacheAware({
        ...rest,
        horizon_range: [2, 7],
        recall_probability_range: [0.2, 0.4],
        cache_hit_rate_range: [0.8, 1],
      }),
    );
    expect(body.inputs).toMatchObject({ horizon: 4, recall_probability: 0.30000000000000004, cache_hit_rate: 0.9 });
    expect(body.inputs.horizon_range).toEqual([2, 7]);
    expect(body.worst_case).not.toBeNull();
  });
});

describe("seed mode with and without ranges", () => {
  it("answers opus's API-valid conformance vectors, without ranges, with the reference's fields and worst_case null", async () => {
    const vectors = VECTORS.filter(
      (vector) => vector.api_valid && vector.inputs.model_name === "claude-opus-4-6",
    ).slice(0, 60);
    await putRow("claude-opus-4-6", { ...OPUS, ...VECTOR_PRICING["claude-opus-4-6"] });
    const res = await postJson("/v1/gate/batch", { items: vectors.map((vector) => vector.inputs) });
    const { decisions } = await res.json<{ decisions: any[] }>();
    decisions.forEach((answer, i) => {
      const { fire, net_saving_usd, reprefill_saving_usd, stub_carry_cost_usd, expected_recall_hop_cost_usd, reason } =
        answer;
      expect({
        fire,
        net_saving_usd,
        reprefill_saving_usd,
        stub_carry_cost_usd,
        expected_recall_hop_cost_usd,
        reason,
      }).toEqual(vectors[i]?.expected);
      expect(answer.worst_case).toBeNull();
      expect(answer.suffix_rewrite_cost_usd).toBe(0);
    });
  });

  it("with horizon and recall ranges fires only if every corner pays, and names the worst in the reason", async () => {
    const { context_tokens: _c, cache_hit_rate: _q, ...seed } = EXAMPLE_1;
    const body = await decided({ ...seed, horizon_range: [0, 6] });
    expect(body).toMatchObject({ fire: false, reason_code: "worst_case_not_positive", pricing_mode: "seed" });
    expect(body.worst_case).toMatchObject({ horizon: 0, recall_probability: 0.3, cache_hit_rate: null });
    expect(body.reason).toMatch(/^net=\$0\.3893 .*; worst=\$-0\.0067 at H=0 p_recall=0\.30$/);
  });
});
