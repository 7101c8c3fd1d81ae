import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CURVE_EXTRA_POINTS, MAX_CURVE_POINTS } from "../../src/gate";
import { MODELS } from "../support/fuzz-gate-bodies";
import { runs } from "../support/runs";
import { GATE_KEY, SEED } from "../support/fuzz-routes";
import { plausiblePlan } from "../support/fuzz-bodies";
import { type RequestSpec } from "../support/fuzz-requests";
import { send, useFuzzHarness } from "../support/fuzz-harness";

// Property-based fuzzing of the whole HTTP surface, in workerd, against the
// real app and the real local KV binding. The seed is fixed so that a failure
// reproduces; fast-check prints the seed and the shrunk counterexample, which
// then becomes a named test in "edge cases the fuzzer reaches" below.

useFuzzHarness();

describe("POST /v1/gate/curve under fuzzing", () => {
  it("answers every well-formed curve request with bounded, ascending, finite curves that never fire unpriced", async () => {
    const valid = fc.record(
      {
        request: fc.record({
          model_name: fc.constantFrom(...MODELS),
          output_tokens: fc.double({ min: 0, max: 1e9, noNaN: true }),
          horizon: fc.nat({ max: 1_000_000 }),
          recall_probability: fc.double({ min: 0, max: 1, noNaN: true }),
          pricing_mode: fc.constantFrom("seed", "cache_aware"),
        }),
        points: fc.integer({ min: 2, max: MAX_CURVE_POINTS }),
        horizon_max: fc.integer({ min: 1, max: 1_000_000 }),
        output_tokens_max: fc.integer({ min: 1, max: 1e12 }),
      },
      { requiredKeys: ["request"] },
    );
    await fc.assert(
      fc.asyncProperty(valid, async (body) => {
        const spec: RequestSpec = {
          method: "POST",
          path: "/v1/gate/curve",
          contentType: "application/json",
          authorization: undefined,
          body: JSON.stringify(body),
          gateKeysConfigured: false,
        };
        const { res, text } = await send(spec);
        expect(res.status, text).toBe(200);
        const curve = JSON.parse(text);
        const priced = curve.priced_as !== null;
        for (const line of [curve.horizon, curve.output_tokens]) {
          expect(line.length).toBeLessThanOrEqual((body.points ?? MAX_CURVE_POINTS) + CURVE_EXTRA_POINTS);
          const xs = line.map((p: { x: number }) => p.x);
          expect(xs).toEqual([...xs].sort((a, b) => a - b));
          for (const p of line) {
            expect(Number.isFinite(p.net_saving_usd)).toBe(true);
            if (p.fire) expect(priced).toBe(true);
          }
        }
      }),
      { seed: SEED, numRuns: runs(200) },
    );
  }, 60_000);
});

describe("the clearing plan under fuzzing", () => {
  it("answers every well-formed plan with a plan that never stubs unpriced or below the pre-filter", async () => {
    await fc.assert(
      fc.asyncProperty(plausiblePlan, async (body) => {
        const spec: RequestSpec = {
          method: "POST",
          path: "/v1/plan",
          contentType: "application/json",
          authorization: `Bearer ${GATE_KEY}`,
          body: JSON.stringify(body),
          gateKeysConfigured: true,
        };
        const { res, text } = await send(spec);
        const ids = body.segments.flatMap((segment) => ("id" in segment ? [segment.id] : []));
        if (new Set(ids).size < ids.length) {
          expect(res.status).toBe(400);
          expect(JSON.parse(text).error.issues[0].path).toMatch(/^segments\.\d+\.id$/);
          return;
        }
        expect(res.status).toBe(200);
        const plan = JSON.parse(text);
        expect(Number.isFinite(plan.net_saving_usd)).toBe(true);
        expect(plan.net_saving_usd).toBeGreaterThanOrEqual(0);
        expect(typeof plan.decision_id).toBe(body.dry_run === true ? "undefined" : "string");
        if (plan.stub.length > 0) expect(["claude-opus-4-6", "gpt-5"]).toContain(plan.priced_as?.model);
        const threshold = plan.inputs.large_offload_threshold_tokens;
        for (const id of plan.stub) {
          expect(body.segments.find((segment) => "id" in segment && segment.id === id)?.tokens).toBeGreaterThanOrEqual(
            threshold,
          );
        }
      }),
      { seed: SEED, numRuns: runs(200) },
    );
  }, 60_000);
});
