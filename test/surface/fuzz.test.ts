import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { MAX_BODY_BYTES } from "../../src/http/guards";
import { MODELS, orderedPair, unitDouble } from "../support/fuzz-gate-bodies";
import { runs } from "../support/runs";
import { GATE_KEY, RUNS, SEED } from "../support/fuzz-routes";
import { type RequestSpec, requestSpec } from "../support/fuzz-requests";
import { WELL_FORMED, checkAnswer, send, unhandled, useFuzzHarness } from "../support/fuzz-harness";

// Property-based fuzzing of the whole HTTP surface, in workerd, against the
// real app and the real local KV binding. The seed is fixed so that a failure
// reproduces; fast-check prints the seed and the shrunk counterexample, which
// then becomes a named test in "edge cases the fuzzer reaches" below.

useFuzzHarness();

describe("the whole API under fuzzing", () => {
  it(`answers ${RUNS} arbitrary requests with 2xx or a 4xx in the error shape, never a 5xx or a secret`, async () => {
    const faults = vi.spyOn(console, "error");
    await fc.assert(
      fc.asyncProperty(requestSpec, async (spec) => {
        const { res, text } = await send(spec);
        checkAnswer(spec, res, text);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // onError logs every unexpected throw; none may have reached it.
    expect(faults).not.toHaveBeenCalled();
    expect(unhandled).toEqual([]);
  }, 60_000);

  it("answers every well-formed gate request with a decision that never fires unpriced", async () => {
    const valid = fc.record({
      model_name: fc.constantFrom(...MODELS),
      output_tokens: fc.double({ min: 0, max: 1e9, noNaN: true }),
      horizon: fc.nat({ max: 1_000_000 }),
      recall_probability: fc.double({ min: 0, max: 1, noNaN: true }),
      dry_run: fc.option(fc.boolean(), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(valid, async (body) => {
        const spec: RequestSpec = {
          method: "POST",
          path: "/v1/gate",
          contentType: "application/json",
          authorization: `Bearer ${GATE_KEY}`,
          body: JSON.stringify(body),
          gateKeysConfigured: true,
        };
        const { res, text } = await send(spec);
        expect(res.status).toBe(200);
        const decision = JSON.parse(text);
        if (decision.fire) expect(["claude-opus-4-6", "gpt-5"]).toContain(decision.priced_as?.model);
        expect(Number.isFinite(decision.net_saving_usd)).toBe(true);
        // A dry run has no id, and says so; a recorded decision has its id.
        expect([decision.dry_run, typeof decision.decision_id]).toEqual(
          body.dry_run === true ? [true, "undefined"] : [undefined, "string"],
        );
      }),
      { seed: SEED, numRuns: runs(300) },
    );
  }, 60_000);

  it("answers every well-formed cache-aware request with placement, TTL and ranges, never firing on a losing corner", async () => {
    const valid = fc
      .record({
        model_name: fc.constantFrom(...MODELS),
        output_tokens: fc.nat({ max: 400_000 }),
        context_tokens: fc.nat({ max: 400_000 }),
        offload_at: fc.constantFrom("entry", "retroactive"),
        suffix_tokens: fc.nat({ max: 400_000 }),
        cache_ttl: fc.constantFrom("5m", "1h"),
        recall_placement: fc.constantFrom("append", "in_place"),
        horizon_range: orderedPair(fc.nat({ max: 60 })),
        recall_probability_range: orderedPair(unitDouble),
        cache_hit_rate_range: orderedPair(unitDouble),
        ranged: fc.boolean(),
      })
      // Ranges alone (their midpoints stand in for the points), and suffix_tokens only where it applies.
      .map(({ ranged, suffix_tokens, horizon_range, recall_probability_range, cache_hit_rate_range, ...body }) => ({
        ...body,
        pricing_mode: "cache_aware",
        ...(body.offload_at === "retroactive" ? { suffix_tokens } : {}),
        ...(ranged ? { horizon_range, recall_probability_range, cache_hit_rate_range } : {}),
      }));
    await fc.assert(
      fc.asyncProperty(valid, async (body) => {
        const { res, text } = await send({ ...WELL_FORMED, body: JSON.stringify(body) });
        expect(res.status, text).toBe(200);
        const decision = JSON.parse(text);
        expect(Number.isFinite(decision.suffix_rewrite_cost_usd)).toBe(true);
        if (decision.worst_case !== null) expect(Number.isFinite(decision.worst_case.net_saving_usd)).toBe(true);
        if (decision.fire) expect(decision.worst_case === null || decision.worst_case.net_saving_usd > 0).toBe(true);
        if (!("horizon_range" in body) && decision.reason_code !== "below_threshold")
          expect(decision.worst_case).toBeNull();
      }),
      { seed: SEED, numRuns: runs(300) },
    );
  }, 60_000);

  it("answers every well-formed request that tells its session, deciding cache-aware ones on the session's horizon range", async () => {
    const valid = fc.record({
      model_name: fc.constantFrom(...MODELS),
      output_tokens: fc.nat({ max: 400_000 }),
      context_tokens: fc.nat({ max: 400_000 }),
      pricing_mode: fc.constantFrom("seed", "cache_aware"),
      call_index: fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined }),
      subagent: fc.option(fc.boolean(), { nil: undefined }),
      agent: fc.option(fc.constantFrom("claude-code", "mini-swe-agent", "swe-agent", "atif", "codex", "x.y-z_9"), {
        nil: undefined,
      }),
    });
    await fc.assert(
      fc.asyncProperty(valid, async ({ context_tokens, ...rest }) => {
        const body = rest.pricing_mode === "cache_aware" ? { ...rest, context_tokens } : rest;
        const { res, text } = await send({ ...WELL_FORMED, body: JSON.stringify(body) });
        expect(res.status, text).toBe(200);
        const decision = JSON.parse(text);
        const told = body.call_index !== undefined || body.subagent !== undefined || body.agent !== undefined;
        const session = body.pricing_mode === "cache_aware" && told;
        expect(["family", "pooled"].includes(decision.priors.horizon.source)).toBe(session);
        if (session && decision.reason_code !== "below_threshold") {
          const [lo, hi] = decision.inputs.horizon_range;
          expect(lo).toBeLessThanOrEqual(hi);
          expect(hi).toBe(decision.inputs.horizon);
          if (decision.fire) expect(decision.worst_case.net_saving_usd).toBeGreaterThan(0);
        }
      }),
      { seed: SEED, numRuns: runs(200) },
    );
  }, 60_000);
});

describe("edge cases the fuzzer reaches", () => {
  const base: RequestSpec = {
    method: "POST",
    path: "/v1/gate",
    contentType: "application/json",
    authorization: undefined,
    body: JSON.stringify({ model_name: "claude-opus-4-6", output_tokens: 20_000 }),
    gateKeysConfigured: false,
  };

  const cases: [string, Partial<RequestSpec>, number][] = [
    [
      "a body over the limit",
      { body: JSON.stringify({ model_name: "gpt-5", output_tokens: 1, pad: "x".repeat(MAX_BODY_BYTES) }) },
      413,
    ],
    ["a NUL byte for a body", { body: "\u0000" }, 400],
    ["a JSON array for a body", { body: "[]" }, 400],
    [
      "a model name of 129 characters",
      { body: JSON.stringify({ model_name: "m".repeat(129), output_tokens: 20_000 }) },
      400,
    ],
    ["a form-encoded body", { contentType: "application/x-www-form-urlencoded", body: "model_name=gpt-5" }, 415],
    ["no content type", { contentType: undefined }, 415],
    ["a content type with a trailing ;", { contentType: "application/json;" }, 415],
    ["a doubled slash in the path", { path: "//v1/gate" }, 404],
    ["HEAD on the gate", { method: "HEAD" }, 405],
    ["a stray bearer token", { authorization: "Bearer tok_0123456789abcdef" }, 200],
  ];

  it.each(cases)("answers %s with %i in the documented shape", async (_what, change, status) => {
    const spec = { ...base, ...change };
    const { res, text } = await send(spec);
    expect(res.status).toBe(status);
    checkAnswer(spec, res, text);
  });

  it("takes an upper-case JSON media type as JSON", async () => {
    const { res } = await send({ ...base, contentType: "APPLICATION/JSON" });
    expect(res.status).toBe(200);
  });
});
