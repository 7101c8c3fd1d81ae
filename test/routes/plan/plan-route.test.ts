import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WORKED_EXAMPLE_P1, WORKED_EXAMPLE_P1_ANSWER } from "../../../src/routes/plan/schema";
import { MAX_TOKENS } from "../../../src/storage/rules";
import { callWithEnv } from "../../support/admin-helpers";
import { bearer, call, jsonInit, OPUS, postJson, putRow, resetState } from "../../support/helpers";
import { PROD_KEY, TEST_GATE_API_KEYS } from "../../support/secrets";

/** Worked example P1 (docs/design/plan.md §4) as the documentation sends it: the other priors from the config. */
const P1 = WORKED_EXAMPLE_P1;

const postPlan = (body: unknown) => postJson("/v1/plan", body);
const issuesOf = async (res: Response) => (await res.json<any>()).error.issues as { path: string; message: string }[];

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => vi.restoreAllMocks());

describe("POST /v1/plan on worked example P1", () => {
  it("stubs c1, c2 and c3 for ≈ $0.277302 when recalls append, though c1 and c2 lose money alone, and writes one data point", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const res = await postPlan(P1);
    expect(res.status).toBe(200);
    const plan = await res.json<any>();
    expect(plan.stub).toEqual(["c1", "c2", "c3"]);
    expect(plan.net_saving_usd).toBeCloseTo(0.277301875, 12);
    expect(plan.keep_cost_usd).toBeCloseTo(0.43645, 12);
    expect(plan.plan_cost_usd).toBeCloseTo(0.159148125, 12);
    expect([plan.rewrite_from_tokens, plan.rewritten_tokens]).toEqual([8_000, 7_100]);
    expect(plan.candidates.map((c: any) => [c.id, c.stubbed])).toEqual([
      ["c1", true],
      ["c2", true],
      ["c3", true],
    ]);
    expect(plan.candidates[0].alone_net_saving_usd).toBeCloseTo(-0.1056, 12);
    expect(plan.candidates[1].alone_net_saving_usd).toBeCloseTo(-0.148016875, 12);
    expect(plan.candidates[2].alone_net_saving_usd).toBeCloseTo(0.10656875, 12);
    expect(plan.reason_code).toBe("plan_positive");
    expect(plan.priced_as).toMatchObject({ model: "claude-opus-4-6", input: 5, cache_write: 6.25 });
    expect(plan.stale_pricing).toBeNull();
    expect(plan.inputs).toMatchObject({
      recall_probability: 0.25,
      cache_ttl: "5m",
      recall_placement: "append",
      history_tokens: 101_500,
    });

    // The answer the documentation shows is this one, to the last bit (its id is this plan's own).
    expect(plan).toEqual({ ...WORKED_EXAMPLE_P1_ANSWER, decision_id: expect.stringMatching(/^dec_\d+_[0-9a-f]{32}$/) });

    expect(write).toHaveBeenCalledTimes(1);
    expect(write.mock.calls[0]?.[0]).toEqual({
      indexes: ["default"],
      // blob7–9: the plan's id, tool and session (none sent); blob10 and blob11 are offload_at and cache_ttl, as for a decision.
      // double9 is the floor in force: none, the plan's own economics decide.
      blobs: [
        "claude-opus-4-6",
        "claude-opus-4-6",
        "plan_positive",
        "plan",
        "",
        plan.reason,
        plan.decision_id,
        "",
        "",
        "retroactive",
        "5m",
        "",
        "",
        "",
      ],
      doubles: [
        ...[1, plan.net_saving_usd, plan.keep_cost_usd, plan.plan_cost_usd, 3, 3, 4, 0.25, 0, 200, 2_000, 500, 0],
        // double14–18: the cached prefix, q, N, the tokens rewritten, the segments.
        ...[8_000, 0.9, 101_500, 7_100, 7],
      ],
    });
  });

  it("prices the 1-hour cache when asked, and echoes it", async () => {
    const plan = await (await postPlan({ ...P1, cache_ttl: "1h" })).json<any>();
    expect(plan.inputs.cache_ttl).toBe("1h");
    expect(plan.keep_cost_usd).toBeCloseTo(101_500 * 4 * 1.45e-6, 12);
  });
});

describe("POST /v1/plan's other answers", () => {
  it("stubs the same three for ≈ $0.177683 with recall_placement in_place, and refuses a placement it does not know", async () => {
    const plan = await (await postPlan({ ...P1, recall_placement: "in_place", dry_run: true })).json<any>();
    expect(plan.stub).toEqual(["c1", "c2", "c3"]);
    expect(plan.net_saving_usd).toBeCloseTo(0.177683125, 12);
    expect(plan.candidates[0].alone_net_saving_usd).toBeCloseTo(-0.1589025, 12);
    expect(plan.reason).toContain("ttl=5m recall_placement=in_place tier=none");
    const res = await postPlan({ ...P1, recall_placement: "middle" });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues).toEqual([
      { path: "recall_placement", message: 'must be "append" or "in_place"' },
    ]);
  });

  it("prices a retired model as its replacement, as the gate does, and says so", async () => {
    await putRow("o4-mini", { input: 1.1, output: 4.4, retires_at: "2026-10-23", replaced_by: "claude-opus-4-6" });
    const plan = await (await postPlan({ ...P1, model_name: "o4-mini" })).json<any>();
    expect(plan.priced_as.model).toBe("claude-opus-4-6");
    expect(plan.lifecycle).toMatchObject({ model: "o4-mini", status: "retired", priced_as_replacement: true });
    expect(plan.net_saving_usd).toBe(WORKED_EXAMPLE_P1_ANSWER.net_saving_usd);
  });

  it("answers unpriced for a model no row prices, and stubs nothing", async () => {
    const plan = await (await postPlan({ ...P1, model_name: "mystery-model-9" })).json<any>();
    expect([plan.reason_code, plan.stub, plan.priced_as, plan.reason]).toEqual([
      "unpriced",
      [],
      null,
      "no MODEL_PRICING row for 'mystery-model-9'",
    ]);
  });

  it("answers no_candidates without reading pricing when every candidate is below the pre-filter", async () => {
    const get = vi.spyOn(env.PRICING, "get");
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const plan = await (
      await postPlan({ ...P1, model_name: "gpt-5", large_offload_threshold_tokens: 50_000 })
    ).json<any>();
    expect(plan.reason_code).toBe("no_candidates");
    expect(plan.candidates.every((c: any) => c.stubbed === false && c.alone_net_saving_usd === null)).toBe(true);
    expect(get.mock.calls.map(([key]) => key).filter((key) => String(key).startsWith("pricing:"))).toEqual([]);
    expect(write.mock.calls.map(([point]) => point?.blobs?.slice(1, 4))).toEqual([["", "no_candidates", "plan"]]);
  });

  it("keeps everything when no plan pays, and says which plan came closest", async () => {
    // One turn left, and every output is sure to be recalled: no stub pays for its recall hop.
    const sure = P1.segments.map((segment) => ("id" in segment ? { ...segment, recall_probability: 1 } : segment));
    const plan = await (await postPlan({ ...P1, horizon: 1, segments: sure })).json<any>();
    expect(plan.reason_code).toBe("plan_not_positive");
    expect([plan.stub, plan.net_saving_usd, plan.rewrite_from_tokens, plan.rewritten_tokens]).toEqual([
      [],
      0,
      101_500,
      0,
    ]);
    expect(plan.plan_cost_usd).toBe(plan.keep_cost_usd);
    expect(plan.reason).toMatch(/^keep all: the best plan \(stub \d of 3 candidates\) has net=\$-/);
  });
});

describe("POST /v1/plan refuses a bad request with a 400 naming its path, and records nothing", () => {
  const bad = async (body: unknown, path: string, message: RegExp) => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const before = write.mock.calls.length;
    const res = await postPlan(body);
    expect(write.mock.calls.length).toBe(before);
    expect(res.status).toBe(400);
    const issues = await issuesOf(res);
    expect(issues.map((issue) => issue.path)).toContain(path);
    expect(issues.find((issue) => issue.path === path)?.message).toMatch(message);
  };
  const segments = (count: number, candidates: number) =>
    Array.from({ length: count }, (_, i) => (i < candidates ? { id: `c${i}`, tokens: 20_000 } : { tokens: 10 }));

  it("a segment's tokens that are negative, fractional, too large or missing", async () => {
    const with7 = (segment: unknown) => ({ ...P1, segments: [...segments(7, 0), segment] });
    await bad(with7({ tokens: -1 }), "segments.7.tokens", /integer ≥ 0/);
    await bad(with7({ tokens: 1.5 }), "segments.7.tokens", /integer ≥ 0/);
    await bad(with7({ tokens: MAX_TOKENS + 1 }), "segments.7.tokens", /at most/);
    await bad(with7({ id: "x" }), "segments.7.tokens", /is required/);
  });

  it("repeated ids, more than 64 candidates, more than 512 segments, or none", async () => {
    await bad(
      { ...P1, segments: [{ id: "a", tokens: 1 }, { tokens: 2 }, { id: "a", tokens: 3 }] },
      "segments.2.id",
      /repeats segments\.0\.id/,
    );
    await bad({ ...P1, segments: segments(65, 65) }, "segments.64.id", /at most 64/);
    expect((await postPlan({ ...P1, segments: segments(64, 64) })).status).toBe(200);
    await bad({ ...P1, segments: segments(513, 1) }, "segments", /at most 512/);
    expect((await postPlan({ ...P1, segments: segments(512, 64) })).status).toBe(200);
    await bad({ ...P1, segments: [] }, "segments", /at least one/);
    await bad({ model_name: "claude-opus-4-6" }, "segments", /is required/);
  });

  it("a history longer than the gate's token bound in all", async () => {
    await bad({ ...P1, segments: [{ tokens: MAX_TOKENS }, { id: "c", tokens: MAX_TOKENS }] }, "segments", /at most/);
  });

  it("per-candidate fields on fixed context, unknown fields, and bad priors", async () => {
    await bad(
      { ...P1, segments: [{ tokens: 5, stub_tokens: 100 }] },
      "segments.0.stub_tokens",
      /only applies to a candidate/,
    );
    await bad({ ...P1, segments: [{ id: "c", tokens: 5, color: "red" }] }, "segments.0.color", /not a known field/);
    await bad({ ...P1, segments: [{ id: "", tokens: 5 }] }, "segments.0.id", /empty/);
    await bad({ ...P1, cache_ttl: "5 minutes" }, "cache_ttl", /"5m" or "1h"/);
    await bad({ ...P1, horizon: -1 }, "horizon", /integer ≥ 0/);
    await bad({ ...P1, pricing_mode: "seed" }, "pricing_mode", /not a known field/);
  });
});

describe("POST /v1/plan's keys, limit and methods", () => {
  it("answers 405 with Allow: POST for other methods", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await call("/v1/plan", { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect((await res.json<any>()).error.code).toBe("method_not_allowed");
    }
  });

  it("requires a gate key when GATE_API_KEYS is set, and records the key's name as the tenant", async () => {
    const keyed = { GATE_API_KEYS: TEST_GATE_API_KEYS };
    expect((await callWithEnv(keyed, "/v1/plan", jsonInit("POST", P1))).status).toBe(401);
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    expect((await callWithEnv(keyed, "/v1/plan", jsonInit("POST", P1, bearer(PROD_KEY)))).status).toBe(200);
    expect(write.mock.calls.map(([point]) => point?.indexes?.[0])).toEqual(["agents-prod"]);
  });

  it("counts one plan as one request against the tenant's gate limit", async () => {
    const spy = vi.spyOn(env.GATE_RATE_LIMITER, "limit");
    await postPlan(P1);
    expect(spy.mock.calls).toEqual([[{ key: "gate:default" }]]);
  });
});
