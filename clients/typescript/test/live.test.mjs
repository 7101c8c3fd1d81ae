// The TypeScript client against a running gate (npm run test:clients starts
// one and sets OFFLOAD_GATE_TEST_URL / OFFLOAD_GATE_TEST_API_KEY).
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { createGateClient } from "../dist/index.js";

const baseUrl = process.env.OFFLOAD_GATE_TEST_URL;
const apiKey = process.env.OFFLOAD_GATE_TEST_API_KEY;
if (baseUrl === undefined && process.env.OFFLOAD_GATE_REQUIRE_INTEGRATION)
  throw new Error("OFFLOAD_GATE_TEST_URL is not set");
const EXAMPLE_A = { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };

describe("the TypeScript client against the local gate", { skip: baseUrl === undefined && "no running gate" }, () => {
  const gate = createGateClient({ baseUrl, apiKey, timeoutMs: 10_000 });

  it("decides worked example A exactly as the reference does", async () => {
    const decision = await gate.decide(EXAMPLE_A, { raiseOnError: true });
    assert.equal(decision.fallback, false);
    assert.equal(decision.net_saving_usd, 0.38925000000000004);
    assert.equal(
      decision.reason,
      "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
    );
  });

  it("decides a batch and refuses only the bad item", async () => {
    const decisions = await gate.decideBatch([EXAMPLE_A, { model_name: "gpt-5", output_tokens: -1 }]);
    assert.deepEqual(
      decisions.map((d) => [d.fire, d.reason_code]),
      [
        [true, "net_positive"],
        [false, "gate_invalid_request"],
      ],
    );
  });

  it("fails safe on a wrong key and on a port with no gate", async () => {
    if (apiKey) {
      const wrong = await createGateClient({ baseUrl, apiKey: "wrong-key-0123456789abcdef" }).decide(EXAMPLE_A);
      assert.deepEqual([wrong.fire, wrong.reason_code], [false, "gate_unauthorized"]);
    }
    const port = await new Promise((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address();
        probe.close(() => resolve(free));
      });
    });
    const none = await createGateClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1000 }).decide(EXAMPLE_A);
    assert.deepEqual([none.fire, none.reason_code], [false, "gate_unreachable"]);
  });

  it("reports a decision's outcome and a session's bill", async () => {
    const session = `ts-${Date.now().toString(36)}`;
    const decision = await gate.decide(
      { ...EXAMPLE_A, session_id: session, tool_name: "web_fetch" },
      { raiseOnError: true },
    );
    assert.match(decision.decision_id, /^dec_\d+_[0-9a-f]{32}(_[0-9a-f]{8}_[0-9a-f]{16})?$/);
    // The gate hands the decision to the ledger after answering: retry (bounded) until it is there.
    let report;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      report = await gate.reportOutcomes(
        [{ decision_id: decision.decision_id, turns_after: 5, recalled: false, cached_turns: 4 }],
        { raiseOnError: true },
      );
      if (report.results[0].status !== "unknown_decision") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual([report.ok, report.accepted, report.results[0].status], [true, 1, "accepted"]);
    const usage = { input_tokens: 4_200, output_tokens: 9_800, cache_read_input_tokens: 1_650_000 };
    const bill = await gate.reportSessions([{ session_id: session, model_name: "claude-opus-4-6", turns: 12, usage }], {
      raiseOnError: true,
    });
    assert.deepEqual([bill.ok, bill.accepted], [true, 1]);
  });

  it("plans worked example P1: all three stubbed, though two lose money alone", async () => {
    const segments = [
      { tokens: 8_000 },
      { id: "c1", tokens: 42_000, recall_probability: 0.2 },
      { tokens: 1_500 },
      { id: "c2", tokens: 15_000, recall_probability: 0.25 },
      { tokens: 3_000 },
      { id: "c3", tokens: 30_000, recall_probability: 0.1 },
      { tokens: 2_000 },
    ];
    const plan = await gate.plan(
      { model_name: "claude-opus-4-6", horizon: 4, cache_hit_rate: 0.9, segments },
      { raiseOnError: true },
    );
    assert.deepEqual([plan.fallback, plan.stub, plan.reason_code], [false, ["c1", "c2", "c3"], "plan_positive"]);
    assert.ok(Math.abs(plan.net_saving_usd - 0.277302) < 5e-7); // recalls appended, the default placement
    const refused = await gate.plan({
      model_name: "claude-opus-4-6",
      segments: [
        { id: "a", tokens: 1 },
        { id: "a", tokens: 1 },
      ],
    });
    assert.deepEqual([refused.fallback, refused.stub, refused.reason_code], [true, [], "gate_invalid_request"]);
  });
});
