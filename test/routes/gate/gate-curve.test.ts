import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CURVE_EXTRA_POINTS, DEFAULT_CURVE_POINTS, MAX_CURVE_POINTS } from "../../../src/gate";
import { callWithEnv } from "../../support/admin-helpers";
import { SONNET_45 } from "../../fixtures/rows";
import {
  bearer,
  call,
  EXAMPLE_A,
  jsonInit,
  OPUS,
  postGate,
  postJson,
  putAlias,
  putRow,
  resetState,
} from "../../support/helpers";
import { PROD_KEY, TEST_GATE_API_KEYS } from "../../support/secrets";

interface Point {
  x: number;
  fire: boolean;
  net_saving_usd: number;
  reason_code: string;
}
interface Curve {
  pricing_mode: string;
  inputs: Record<string, unknown>;
  break_even_horizon: number | null;
  break_even_output_tokens: number | null;
  priced_as: Record<string, unknown> | null;
  horizon: Point[];
  output_tokens: Point[];
}

const SEED_REQUEST = EXAMPLE_A;
/** Design note, example 2, cache-aware: the seed fires here, the cache-aware gate does not until H = 3. */
const CACHE_REQUEST = {
  model_name: "claude-opus-4-6",
  output_tokens: 12_000,
  horizon: 2,
  recall_probability: 0.5,
  pricing_mode: "cache_aware",
  context_tokens: 150_000,
};

const postCurve = (body: unknown) => postJson("/v1/gate/curve", body);

async function curveOf(body: Record<string, unknown>): Promise<Curve> {
  const res = await postCurve(body);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json<Curve>();
}

/** What POST /v1/gate/batch answers for the request at each x of a curve: one item per point. */
async function gateAlong(
  request: Record<string, unknown>,
  field: "horizon" | "output_tokens",
  xs: number[],
): Promise<Point[]> {
  const res = await postJson("/v1/gate/batch", { items: xs.map((x) => ({ ...request, [field]: x })) });
  const { decisions } = await res.json<{ decisions: Record<string, any>[] }>();
  return decisions.map((d, i) => ({
    x: xs[i] ?? NaN,
    fire: d.fire,
    net_saving_usd: d.net_saving_usd,
    reason_code: d.reason_code,
  }));
}

// Opus for the design note's examples, Sonnet 4.5 for its long-context tier.
beforeEach(async () => {
  await resetState();
  await Promise.all([putRow("claude-opus-4-6", OPUS), putRow("claude-sonnet-4-5", SONNET_45)]);
});
afterEach(() => vi.restoreAllMocks());

describe("POST /v1/gate/curve", () => {
  it.each([
    ["seed", SEED_REQUEST],
    ["cache_aware", CACHE_REQUEST],
    [
      "cache_aware with a long-context tier",
      { ...CACHE_REQUEST, model_name: "claude-sonnet-4-5", context_tokens: 195_000 },
    ],
  ])(
    "has a point at the request's inputs equal to POST /v1/gate's net_saving_usd, in %s mode",
    async (_mode, request) => {
      const gate = await (await postGate(request)).json<Record<string, any>>();
      const curve = await curveOf({ request });
      const onHorizon = curve.horizon.find((p) => p.x === request.horizon);
      const onTokens = curve.output_tokens.find((p) => p.x === request.output_tokens);
      expect(onHorizon).toEqual({
        x: request.horizon,
        fire: gate.fire,
        net_saving_usd: gate.net_saving_usd,
        reason_code: gate.reason_code,
      });
      expect(onTokens).toEqual({
        x: request.output_tokens,
        fire: gate.fire,
        net_saving_usd: gate.net_saving_usd,
        reason_code: gate.reason_code,
      });
      const { pricing_mode, inputs, break_even_horizon, break_even_output_tokens } = gate;
      expect(curve).toMatchObject({
        pricing_mode,
        inputs,
        break_even_horizon,
        break_even_output_tokens,
        priced_as: gate.priced_as,
      });
    },
  );

  it.each([
    ["seed", SEED_REQUEST],
    ["cache_aware", CACHE_REQUEST],
  ])("answers at every point what the gate answers there, in %s mode", async (_mode, request) => {
    const curve = await curveOf({ request, points: 21 });
    for (const field of ["horizon", "output_tokens"] as const) {
      const points = curve[field];
      expect(
        await gateAlong(
          request,
          field,
          points.map((p) => p.x),
        ),
      ).toEqual(points);
    }
  });

  it("marks the API's break-evens: the first point that fires on each curve is the decision's break-even", async () => {
    // Every horizon from 0 to 12 is on the curve, so the first that fires is the break-even itself.
    const curve = await curveOf({ request: CACHE_REQUEST, horizon_max: 12 });
    expect(curve.horizon.map((p) => p.x)).toEqual([...Array(13).keys()]);
    expect(curve.horizon.find((p) => p.x === CACHE_REQUEST.horizon)?.fire).toBe(false);
    expect(curve.break_even_horizon).toBe(3);
    expect(curve.horizon.find((p) => p.fire)?.x).toBe(3);
    const firstTokens = curve.output_tokens.find((p) => p.fire);
    expect(firstTokens?.x).toBe(curve.break_even_output_tokens);
    // ... and the integer below it does not fire.
    const below = await gateAlong(CACHE_REQUEST, "output_tokens", [(firstTokens?.x ?? 0) - 1]);
    expect(below[0]?.fire).toBe(false);
  });

  it("writes no Analytics Engine data point, where POST /v1/gate writes one", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    await curveOf({ request: CACHE_REQUEST, points: MAX_CURVE_POINTS });
    await curveOf({ request: SEED_REQUEST });
    expect(write).not.toHaveBeenCalled();
    await postGate(SEED_REQUEST);
    expect(write).toHaveBeenCalledTimes(1);
  });

  it(`holds at most the points asked for plus ${CURVE_EXTRA_POINTS}, ascending, from 0 to each curve's end`, async () => {
    for (const [points, expected] of [
      [undefined, DEFAULT_CURVE_POINTS],
      [2, 2],
      [MAX_CURVE_POINTS, MAX_CURVE_POINTS],
    ] as const) {
      const curve = await curveOf({ request: SEED_REQUEST, ...(points === undefined ? {} : { points }) });
      for (const line of [curve.horizon, curve.output_tokens]) {
        expect(line.length).toBeGreaterThanOrEqual(Math.min(expected, 2));
        expect(line.length).toBeLessThanOrEqual(expected + CURVE_EXTRA_POINTS);
        expect(line[0]?.x).toBe(0);
        const xs = line.map((p) => p.x);
        expect(xs).toEqual([...xs].sort((a, b) => a - b));
        expect(new Set(xs).size).toBe(xs.length);
      }
    }
    const curve = await curveOf({ request: SEED_REQUEST, horizon_max: 40, output_tokens_max: 90_000 });
    expect(curve.horizon.at(-1)?.x).toBe(40);
    expect(curve.output_tokens.at(-1)?.x).toBe(90_000);
  });

  it("reaches by default past the request, the pre-filter and the break-even", async () => {
    const curve = await curveOf({ request: { ...CACHE_REQUEST, horizon: 6 } });
    expect(curve.horizon.at(-1)?.x).toBeGreaterThanOrEqual(12);
    expect(curve.output_tokens.at(-1)?.x).toBeGreaterThanOrEqual(Math.max(24_000, curve.break_even_output_tokens ?? 0));
  });

  it("charts a request below the pre-filter with the row that prices the rest of the curve", async () => {
    const request = { ...SEED_REQUEST, output_tokens: 4_000 };
    const curve = await curveOf({ request });
    // As the gate answers below the pre-filter: no break-evens.
    expect(curve).toMatchObject({ break_even_horizon: null, break_even_output_tokens: null });
    expect(curve.priced_as).toMatchObject({ model: "claude-opus-4-6", input: 5, output: 25 });
    const threshold = 10_000;
    expect(
      curve.output_tokens
        .filter((p) => p.x < threshold)
        .every((p) => p.reason_code === "below_threshold" && p.net_saving_usd === 0),
    ).toBe(true);
    expect(curve.output_tokens.find((p) => p.x === threshold - 1)?.reason_code).toBe("below_threshold");
    expect(curve.output_tokens.find((p) => p.x === threshold)?.reason_code).toBe("net_positive");
  });

  it("prices an alias with its canonical row, as the gate does", async () => {
    await putRow("claude-opus-4-6", { ...OPUS, aliases: ["opus-latest"] });
    await putAlias("opus-latest", "claude-opus-4-6");
    const curve = await curveOf({ request: { ...SEED_REQUEST, model_name: "opus-latest" } });
    expect(curve.priced_as?.model).toBe("claude-opus-4-6");
  });

  it("never fires along the curves of a model no row prices", async () => {
    const curve = await curveOf({ request: { ...SEED_REQUEST, model_name: "mystery-model-9" } });
    expect(curve.priced_as).toBeNull();
    for (const p of [...curve.horizon, ...curve.output_tokens]) {
      expect(p.fire).toBe(false);
      expect(["unpriced", "below_threshold"]).toContain(p.reason_code);
    }
  });

  it.each([
    [
      "a horizon out of range",
      { request: { ...SEED_REQUEST, horizon: -1 } },
      "request.horizon",
      "must be an integer ≥ 0",
    ],
    [
      "an unknown field in the request",
      { request: { ...SEED_REQUEST, horizon_turns: 4 } },
      "request.horizon_turns",
      "is not a known field",
    ],
    ["no request", { points: 10 }, "request", "is required"],
    [
      "one point",
      { request: SEED_REQUEST, points: 1 },
      "points",
      `must be an integer between 2 and ${MAX_CURVE_POINTS}`,
    ],
    [
      "too many points",
      { request: SEED_REQUEST, points: MAX_CURVE_POINTS + 1 },
      "points",
      `must be an integer between 2 and ${MAX_CURVE_POINTS}`,
    ],
    [
      "a fractional end",
      { request: SEED_REQUEST, horizon_max: 2.5 },
      "horizon_max",
      "must be an integer between 1 and 1000000",
    ],
    [
      "a zero end",
      { request: SEED_REQUEST, output_tokens_max: 0 },
      "output_tokens_max",
      "must be an integer between 1 and 1000000000000",
    ],
    ["an unknown field", { request: SEED_REQUEST, step: 5 }, "step", "is not a known field"],
    [
      "a cache field in seed mode",
      { request: { ...SEED_REQUEST, pricing_mode: "seed", context_tokens: 5 } },
      "request.context_tokens",
      'only applies when pricing_mode is "cache_aware"; pricing_mode is "seed"',
    ],
  ])("answers 400 naming the field for %s", async (_what, body, path, message) => {
    const res = await postCurve(body);
    expect(res.status).toBe(400);
    const { error } = await res.json<{
      error: { code: string; message: string; issues: { path: string; message: string }[] };
    }>();
    expect(error.code).toBe("invalid_request");
    expect(error.issues).toContainEqual({ path, message });
    expect(error.message).toContain(path);
  });

  it("answers 405 with Allow: POST to other methods", async () => {
    const res = await call("/v1/gate/curve");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  it("wants the gate key while GATE_API_KEYS is set, as every /v1/gate route does", async () => {
    const body = { request: SEED_REQUEST };
    const refused = await callWithEnv({ GATE_API_KEYS: TEST_GATE_API_KEYS }, "/v1/gate/curve", jsonInit("POST", body));
    expect(refused.status).toBe(401);
    expect((await refused.json<{ error: { code: string } }>()).error.code).toBe("unauthorized");
    const allowed = await callWithEnv(
      { GATE_API_KEYS: TEST_GATE_API_KEYS },
      "/v1/gate/curve",
      jsonInit("POST", body, bearer(PROD_KEY)),
    );
    expect(allowed.status).toBe(200);
  });
});
