// The TypeScript client's behaviour against a scripted fetch: no network.
// Runs on the built dist/ with node's own test runner (`node --test`).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createGateClient, FALLBACK_REASON_CODES, GateError } from "../dist/index.js";

const EXAMPLE_A = { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };
const DECISION_A = {
  fire: true,
  net_saving_usd: 0.38925000000000004,
  reprefill_saving_usd: 0.4,
  stub_carry_cost_usd: 0.004,
  expected_recall_hop_cost_usd: 0.00675,
  reason: "net=$0.3893 …",
  reason_code: "net_positive",
  pricing_mode: "seed",
  context_premium_saving_usd: 0,
  break_even_horizon: 1,
  break_even_output_tokens: 10_000,
  priced_as: { model: "claude-opus-4-6", input: 5, output: 25 },
  stale_pricing: null,
  inputs: { ...EXAMPLE_A },
};

const json = (body, status = 200, headers = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const failure = (status, code, message, headers = {}, issues = []) =>
  json({ error: { code, message, issues } }, status, headers);

/** A fetch that answers from a script (the last answer repeats) and records what it was sent. */
function scripted(...answers) {
  const sent = [];
  const fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push({ url: request.url, method: request.method, headers: request.headers, body: await request.text() });
    const answer = answers[Math.min(sent.length, answers.length) - 1];
    if (answer instanceof Error) throw answer;
    return typeof answer === "function" ? answer(init) : answer.clone();
  };
  return { fetch, sent };
}

describe("createGateClient", () => {
  it("posts the request to /v1/gate and resolves to the gate's decision", async () => {
    const { fetch, sent } = scripted(json(DECISION_A));
    const decision = await createGateClient({
      baseUrl: "http://gate.test",
      apiKey: "k-0123456789abcdef",
      fetch,
    }).decide(EXAMPLE_A);
    assert.equal(decision.fallback, false);
    assert.equal(decision.fire, true);
    assert.equal(decision.net_saving_usd, 0.38925000000000004);
    assert.equal(sent[0].url, "http://gate.test/v1/gate");
    assert.deepEqual(JSON.parse(sent[0].body), EXAMPLE_A);
    assert.equal(sent[0].headers.get("authorization"), "Bearer k-0123456789abcdef");
  });

  it("reads the gate key from OFFLOAD_GATE_API_KEY when none is given", async () => {
    const { fetch, sent } = scripted(json(DECISION_A));
    process.env.OFFLOAD_GATE_API_KEY = "env-0123456789abcdef";
    try {
      await createGateClient({ baseUrl: "http://gate.test", fetch }).decide(EXAMPLE_A);
    } finally {
      delete process.env.OFFLOAD_GATE_API_KEY;
    }
    assert.equal(sent[0].headers.get("authorization"), "Bearer env-0123456789abcdef");
  });

  it("resolves to a no-fire gate_unreachable decision when the gate cannot be reached", async () => {
    const { fetch } = scripted(new TypeError("fetch failed"));
    const decision = await createGateClient({ fetch }).decide(EXAMPLE_A);
    assert.equal(decision.fallback, true);
    assert.equal(decision.fire, false);
    assert.equal(decision.reason_code, "gate_unreachable");
    assert.ok(decision.error instanceof GateError);
    assert.match(decision.reason, /fetch failed; not offloading/);
  });

  it("abandons a gate that does not answer within the timeout", async () => {
    const hanging = (init) =>
      new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(init.signal.reason)));
    const { fetch } = scripted(hanging);
    const decision = await createGateClient({ fetch, timeoutMs: 30 }).decide(EXAMPLE_A);
    assert.equal(decision.reason_code, "gate_unreachable");
    assert.match(decision.reason, /no answer within the 30 ms timeout/);
  });

  it("gives each failure its own reason code and never fires", async () => {
    const cases = [
      [failure(500, "internal", "boom"), "gate_unavailable"],
      [new Response("<html>bad gateway</html>", { status: 502 }), "gate_unavailable"],
      [failure(401, "unauthorized", "the gate key is not valid"), "gate_unauthorized"],
      [
        failure(400, "invalid_request", "horizon must be an integer ≥ 0", {}, [
          { path: "horizon", message: "must be an integer ≥ 0" },
        ]),
        "gate_invalid_request",
      ],
      [new Response("not json", { status: 200 }), "gate_bad_answer"],
      [json({ fire: "yes" }), "gate_bad_answer"],
    ];
    for (const [answer, code] of cases) {
      const { fetch, sent } = scripted(answer);
      const decision = await createGateClient({ fetch }).decide(EXAMPLE_A);
      assert.deepEqual([decision.fire, decision.reason_code, sent.length], [false, code, 1], code);
      assert.ok(FALLBACK_REASON_CODES.includes(decision.reason_code));
    }
  });

  it("keeps the gate's issues on a refused request", async () => {
    const issues = [{ path: "horizon", message: "must be an integer ≥ 0" }];
    const { fetch } = scripted(failure(400, "invalid_request", "horizon must be an integer ≥ 0", {}, issues));
    const decision = await createGateClient({ fetch }).decide({ ...EXAMPLE_A, horizon: 1.5 });
    assert.deepEqual(decision.issues, issues);
    assert.equal(decision.error.status, 400);
  });

  it("retries a 503 after its Retry-After and a 429 only when the wait fits the timeout", async () => {
    const retried = scripted(failure(503, "unavailable", "KV busy", { "retry-after": "0" }), json(DECISION_A));
    assert.equal((await createGateClient({ fetch: retried.fetch }).decide(EXAMPLE_A)).fire, true);
    assert.equal(retried.sent.length, 2);

    const limited = scripted(failure(429, "rate_limited", "slow down", { "retry-after": "60" }), json(DECISION_A));
    const decision = await createGateClient({ fetch: limited.fetch, timeoutMs: 2000 }).decide(EXAMPLE_A);
    assert.equal(decision.reason_code, "gate_rate_limited");
    assert.equal(decision.error.retryAfterSeconds, 60);
    assert.equal(limited.sent.length, 1);
  });

  it("bounds the retries by maxRetries", async () => {
    const { fetch, sent } = scripted(failure(503, "unavailable", "busy", { "retry-after": "0" }));
    const decision = await createGateClient({ fetch, maxRetries: 2 }).decide(EXAMPLE_A);
    assert.equal(decision.reason_code, "gate_unavailable");
    assert.equal(sent.length, 3);
  });

  it("rejects with the GateError instead when asked to", async () => {
    const { fetch } = scripted(failure(500, "internal", "boom"));
    await assert.rejects(createGateClient({ fetch }).decide(EXAMPLE_A, { raiseOnError: true }), (error) => {
      assert.ok(error instanceof GateError);
      assert.equal(error.reasonCode, "gate_unavailable");
      return true;
    });
    await assert.rejects(createGateClient({ fetch, raiseOnError: true }).decide(EXAMPLE_A), GateError);
  });

  it("decides a batch in order, 100 items a call, with a refused item as a fallback", async () => {
    const refused = {
      error: {
        code: "invalid_request",
        message: "items.1.output_tokens must not be negative",
        issues: [{ path: "items.1.output_tokens", message: "must not be negative" }],
      },
    };
    const answer = (init) => {
      const { items } = JSON.parse(init.body);
      return json({
        decisions: items.map((item) =>
          item.output_tokens < 0
            ? refused
            : { ...DECISION_A, inputs: { ...DECISION_A.inputs, output_tokens: item.output_tokens } },
        ),
      });
    };
    const { fetch, sent } = scripted(answer);
    const requests = Array.from({ length: 150 }, (_, i) => ({ model_name: "gpt-5", output_tokens: i === 1 ? -1 : i }));
    const decisions = await createGateClient({ fetch }).decideBatch(requests);
    assert.deepEqual(
      sent.map((s) => JSON.parse(s.body).items.length),
      [100, 50],
    );
    assert.equal(decisions.length, 150);
    assert.equal(decisions[1].reason_code, "gate_invalid_request");
    assert.equal(decisions[1].issues[0].path, "items.1.output_tokens");
    assert.equal(decisions[149].inputs.output_tokens, 149);
  });

  it("falls back for every item of a batch the gate did not answer", async () => {
    const { fetch } = scripted(new TypeError("fetch failed"));
    const decisions = await createGateClient({ fetch }).decideBatch([EXAMPLE_A, EXAMPLE_A]);
    assert.deepEqual(
      decisions.map((d) => [d.fire, d.reason_code]),
      [
        [false, "gate_unreachable"],
        [false, "gate_unreachable"],
      ],
    );
  });

  it("posts a plan and resolves to the empty plan when the gate cannot answer", async () => {
    const answer = {
      stub: ["c1", "c3"],
      net_saving_usd: 0.27,
      reason: "r",
      reason_code: "plan_positive",
      candidates: [],
    };
    const { fetch, sent } = scripted(json(answer), failure(503, "unavailable", "busy", { "retry-after": "30" }));
    const gate = createGateClient({ baseUrl: "http://gate.test/", fetch });
    const request = { model_name: "claude-opus-4-6", segments: [{ tokens: 8_000 }, { id: "c1", tokens: 42_000 }] };
    const plan = await gate.plan(request);
    assert.deepEqual([plan.fallback, plan.stub, plan.reason_code], [false, ["c1", "c3"], "plan_positive"]);
    assert.equal(sent[0].url, "http://gate.test/v1/plan");
    assert.deepEqual(JSON.parse(sent[0].body), request);
    const fallback = await gate.plan(request);
    assert.deepEqual([fallback.fallback, fallback.stub, fallback.reason_code], [true, [], "gate_unavailable"]);
    assert.match(fallback.reason, /stubbing nothing$/);
  });

  it("reports outcomes 100 a call and sums the tallies", async () => {
    const answer = (init) => {
      const { items } = JSON.parse(init.body);
      return json({
        results: items.map(() => ({ status: "accepted" })),
        accepted: items.length,
        unknown_decision: 0,
        conflict: 0,
        invalid: 0,
      });
    };
    const { fetch, sent } = scripted(answer);
    const items = Array.from({ length: 130 }, (_, i) => ({
      decision_id: `dec_0_${String(i).padStart(32, "0")}`,
      turns_after: 3,
      recalled: false,
    }));
    const report = await createGateClient({ fetch }).reportOutcomes(items);
    assert.equal(report.ok, true);
    assert.deepEqual([report.accepted, report.results.length, report.invalid], [130, 130, 0]);
    assert.deepEqual(
      sent.map((s) => [new URL(s.url).pathname, JSON.parse(s.body).items.length]),
      [
        ["/v1/outcomes", 100],
        ["/v1/outcomes", 30],
      ],
    );
  });

  it("says a report was not taken instead of rejecting, and stops at the first failed chunk", async () => {
    const { fetch, sent } = scripted(failure(500, "internal", "ledger down"));
    const sessions = Array.from({ length: 150 }, (_, i) => ({
      session_id: `s${i}`,
      model_name: "gpt-5",
      turns: 3,
      usage: { input_tokens: 1, output_tokens: 1 },
    }));
    const report = await createGateClient({ fetch }).reportSessions(sessions);
    assert.equal(report.ok, false);
    assert.equal(report.error.reasonCode, "gate_unavailable");
    assert.deepEqual(
      sent.map((s) => new URL(s.url).pathname),
      ["/v1/sessions"],
    );
  });
});
