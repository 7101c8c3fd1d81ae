// OffloadSession's bookkeeping against a scripted gate (fetch), no network:
// what it asks, what it replays, what it reports, and that nothing rejects
// into the loop. Runs on the built dist/ with `node --test`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createGateClient,
  DEFAULT_PLAN_EVERY,
  defaultStub,
  familyFactor,
  OffloadSession,
  PlanCadence,
  TokenMeter,
} from "../dist/index.js";

const json = (body) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
const decisionId = (n) => `dec_0_${n.toString(16).padStart(32, "0")}`;

/** A gate that fires (or not) on every output and accepts every report, after `unknownFirst` unknowns. */
function scriptedGate({ fire = true, unknownFirst = 0, plan = [] } = {}) {
  const sent = [];
  let decided = 0;
  const fetch = async (url, init) => {
    const path = new URL(url).pathname;
    const body = JSON.parse(init.body);
    sent.push({ path, body });
    if (path === "/v1/gate")
      return json({
        fire,
        reason_code: fire ? "net_positive" : "net_not_positive",
        net_saving_usd: 0,
        decision_id: decisionId(++decided),
      });
    if (path === "/v1/plan")
      return json({ stub: plan, reason_code: "plan_positive", net_saving_usd: 0.1, decision_id: decisionId(900) });
    const status = unknownFirst-- > 0 ? "unknown_decision" : "accepted";
    const n = body.items.length;
    return json({
      results: body.items.map(() => ({ status })),
      accepted: status === "accepted" ? n : 0,
      unknown_decision: status === "accepted" ? 0 : n,
      conflict: 0,
      invalid: 0,
    });
  };
  return {
    gate: createGateClient({ baseUrl: "http://gate.test", fetch }),
    sent: (path) => sent.filter((s) => s.path === path).map((s) => s.body),
  };
}

describe("OffloadSession", () => {
  it("asks once per output, with the stub's size, the context, the session and the tool, and replays the answer", async () => {
    const { gate, sent } = scriptedGate();
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: "conv-1" });
    session.observe({
      input_tokens: 100,
      output_tokens: 50,
      cache_read_input_tokens: 2_000,
      cache_creation_input_tokens: 300,
    });
    const texts = await Promise.all([1, 2, 3].map(() => session.offload("c1", "web fetch", "x".repeat(50_000))));
    const stub = defaultStub({ id: "c1", toolName: "web fetch", chars: 50_000, recallToolName: "recall_tool_output" });
    assert.deepEqual(texts, [stub, stub, stub]);
    assert.equal(await session.offload("c1", "web fetch", "x".repeat(50_000)), stub);
    assert.deepEqual(sent("/v1/gate"), [
      {
        // Real tokens at Claude's factor (clients/constants.json: 0.35 a character), never chars ÷ 4.
        output_tokens: 17_500,
        recall_input_tokens: 17_500,
        pricing_mode: "cache_aware",
        context_tokens: 2_450,
        model_name: "claude-opus-4-6",
        stub_tokens: Math.ceil(stub.length * 0.35),
        session_id: "conv-1",
        tool_name: "web_fetch",
      },
    ]);
  });

  it("writes the same stub as the Python client", () => {
    assert.equal(
      defaultStub({ id: "call_1", toolName: "fetch_report", chars: 150_010, recallToolName: "recall_tool_output" }),
      '[offloaded: the output of fetch_report call call_1 (150,010 chars) is not shown; call recall_tool_output with {"id":"call_1"} to read it]',
    );
  });

  it("never asks about small outputs or the recall tool's own results", async () => {
    const { gate, sent } = scriptedGate();
    const session = new OffloadSession({ gate, model: "claude-opus-4-6" });
    assert.equal(await session.offload("c1", "grep", "y".repeat(1_999)), "y".repeat(1_999));
    assert.equal(await session.offload("c2", "recall_tool_output", "z".repeat(90_000)), "z".repeat(90_000));
    assert.deepEqual([sent("/v1/gate").length, session.status("c1")], [0, undefined]);
  });

  it("keeps the original when the store cannot, and answers a recall of an unknown id with text", async () => {
    const errors = [];
    const store = { get: () => undefined, set: () => Promise.reject(new Error("disk full")) };
    const session = new OffloadSession({
      gate: scriptedGate().gate,
      model: "claude-opus-4-6",
      store,
      onError: (e) => errors.push(e),
    });
    assert.equal(await session.offload("c1", "web_fetch", "x".repeat(50_000)), "x".repeat(50_000));
    assert.deepEqual([session.status("c1"), errors.length], ["kept", 1]);
    assert.equal(await session.recall("nope"), 'no offloaded output has id "nope"');
  });

  it("reports turns, cached turns and recalls per decision, 100 a call, then the bill, once", async () => {
    const { gate, sent } = scriptedGate();
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: "conv-2" });
    session.observe({ input_tokens: 10, output_tokens: 1 });
    for (let i = 0; i < 150; i += 1) await session.offload(`c${i}`, "web_fetch", "x".repeat(50_000));
    assert.equal(await session.recall("c7"), "x".repeat(50_000));
    session.observe({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5 });
    session.observe({ input_tokens: 10, output_tokens: 1 });
    const summary = await session.end();
    const batches = sent("/v1/outcomes");
    assert.deepEqual(
      batches.map((b) => b.items.length),
      [100, 50],
    );
    const items = batches.flatMap((b) => b.items);
    assert.deepEqual([...new Set(items.map((i) => `${i.turns_after}/${i.cached_turns}`))], ["2/1"]);
    assert.deepEqual(
      items.filter((i) => i.recalled).map((i) => i.decision_id),
      [decisionId(8)],
    );
    assert.equal(summary.outcomes.accepted, 150);
    assert.deepEqual(sent("/v1/sessions"), [
      {
        items: [
          {
            session_id: "conv-2",
            model_name: "claude-opus-4-6",
            turns: 3,
            usage: { input_tokens: 30, output_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 },
            // The history at the first gate call (11 tokens) times the later calls that missed the cache (the last one).
            covariate: 11,
          },
        ],
      },
    ]);
    assert.equal(await session.end(), summary);
    assert.equal(await session.offload("late", "web_fetch", "x".repeat(50_000)), "x".repeat(50_000));
  });

  it("bills the history at the first gate call times the later cache misses as the session's covariate, and none without a gate call", async () => {
    const { gate, sent } = scriptedGate();
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: "cov-1" });
    session.observe({ input_tokens: 1_000, output_tokens: 0, cache_creation_input_tokens: 9_000 }); // before any gate call
    session.observe({ input_tokens: 50, output_tokens: 10, cache_read_input_tokens: 10_000 });
    await session.offload("c1", "web_fetch", "x".repeat(50_000)); // the history here: 50 + 10 + 10,000 tokens
    session.observe({ input_tokens: 70, output_tokens: 5, cache_read_input_tokens: 10_060 });
    session.observe({ input_tokens: 20_000, output_tokens: 5 }); // idle: the cache expired
    session.observe({ input_tokens: 20_100, output_tokens: 5, cache_creation_input_tokens: 0 });
    await session.end();
    assert.equal(sent("/v1/sessions")[0].items[0].covariate, 10_060 * 2);
    // A session that never asked the gate sends none.
    const quiet = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: "cov-2" });
    quiet.observe({ input_tokens: 10, output_tokens: 2 });
    await quiet.end();
    assert.equal("covariate" in sent("/v1/sessions")[1].items[0], false);
  });

  it("with the provider's cache diagnostics, sends the missed tokens after a plan's rewrite apart from the others, and the others as the covariate", async () => {
    const { gate, sent } = scriptedGate({ fire: false, plan: ["c1"] });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: "diag-1" });
    const missed = (tokens) => ({ cache_miss_reason: { type: "messages_changed", cache_missed_input_tokens: tokens } });
    session.observe({ input_tokens: 1_000, output_tokens: 10, diagnostics: { cache_miss_reason: null } });
    await session.offload("c1", "web_fetch", "x".repeat(50_000)); // kept in full: the plan may stub it later
    session.observe({ input_tokens: 300, output_tokens: 10, cache_read_input_tokens: 18_000, diagnostics: missed(0) });
    session.observe({ input_tokens: 4_000, output_tokens: 10, diagnostics: missed(4_000) }); // a miss the gate did not cause
    assert.deepEqual(await session.plan([{ tokens: 1_000 }, { id: "c1", tokens: 17_500 }]), ["c1"]);
    session.observe({ input_tokens: 9_000, output_tokens: 10, diagnostics: missed(9_000) }); // right after the rewrite
    session.observe({ input_tokens: 200, output_tokens: 10, cache_read_input_tokens: 9_000, diagnostics: missed(150) });
    await session.end();
    const [bill] = sent("/v1/sessions")[0].items;
    assert.deepEqual(bill.cache_misses, { after_gate_rewrite: 9_000, other: 4_150 });
    assert.equal(
      bill.covariate,
      4_150,
      "the misses the gate did not cause: measured, and independent of its decisions",
    );
  });

  it("without diagnostics on any call, sends no cache_misses and the estimated covariate as before", async () => {
    const { gate, sent } = scriptedGate({ fire: false });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: "diag-2" });
    session.observe({ input_tokens: 100, output_tokens: 10 });
    await session.offload("c1", "web_fetch", "x".repeat(50_000));
    session.observe({ input_tokens: 5_000, output_tokens: 10 });
    await session.end();
    const [bill] = sent("/v1/sessions")[0].items;
    assert.equal("cache_misses" in bill, false);
    assert.equal(bill.covariate, 110);
  });

  it("sends an outcome the ledger has not seen yet again", async () => {
    const { gate, sent } = scriptedGate({ unknownFirst: 1 });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6" });
    await session.offload("c1", "web_fetch", "x".repeat(50_000));
    session.observe({ input_tokens: 10, output_tokens: 1 });
    const { outcomes } = await session.end();
    assert.deepEqual(
      [sent("/v1/outcomes").length, outcomes.accepted, outcomes.unknown_decision, outcomes.results[0].status],
      [2, 1, 0, "accepted"],
    );
  });

  it("in seed mode sends the context with the outcome, not the decision", async () => {
    const { gate, sent } = scriptedGate({ fire: false });
    const session = new OffloadSession({
      gate,
      model: "claude-opus-4-6",
      request: { pricing_mode: "seed", horizon: 6 },
    });
    session.observe({ input_tokens: 700, output_tokens: 20 });
    await session.offload("c1", "web_fetch", "x".repeat(50_000));
    const [body] = sent("/v1/gate");
    assert.deepEqual([body.pricing_mode, body.horizon, "context_tokens" in body], ["seed", 6, false]);
    await session.end();
    assert.deepEqual(sent("/v1/outcomes")[0].items, [
      { decision_id: decisionId(1), turns_after: 0, cached_turns: 0, recalled: false, context_tokens: 720 },
    ]);
  });

  it("stubs what a plan says from then on and reports the plan's recall on the plan", async () => {
    const { gate, sent } = scriptedGate({ fire: false, plan: ["c1"] });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6" });
    await session.offload("c1", "web_fetch", "x".repeat(50_000));
    session.observe({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 12_000 });
    assert.deepEqual(
      await session.plan([{ tokens: 800 }, { id: "c1", tokens: 12_500 }, { id: "unknown", tokens: 20_000 }]),
      ["c1"],
    );
    assert.deepEqual(sent("/v1/plan")[0].segments, [{ tokens: 800 }, { id: "c1", tokens: 12_500 }, { tokens: 20_000 }]);
    assert.match(await session.offload("c1", "web_fetch", "x".repeat(50_000)), /^\[offloaded:/);
    assert.equal(await session.recall("c1"), "x".repeat(50_000));
    session.observe({ input_tokens: 10, output_tokens: 1 });
    await session.end();
    assert.deepEqual(
      sent("/v1/outcomes")[0].items.map((i) => [i.decision_id, i.turns_after, i.recalled]),
      [
        [decisionId(1), 2, false],
        [decisionId(900), 1, true],
      ],
    );
  });
});

describe("sizes in real tokens", () => {
  it("start from the model family's factor in clients/constants.json, the one place both clients read", async () => {
    const { readFile } = await import("node:fs/promises");
    const shared = JSON.parse(await readFile(new URL("../../constants.json", import.meta.url), "utf8"));
    assert.equal(familyFactor("claude-opus-4-6"), shared.tokens_per_char.claude);
    assert.equal(familyFactor("openai/gpt-5"), shared.tokens_per_char.gpt);
    assert.equal(familyFactor("mystery-model"), shared.default_tokens_per_char);
  });

  it("measure an output from the prompt's growth between the calls before and after it, shared by characters", () => {
    const meter = new TokenMeter("claude-opus-4-6");
    meter.observeUsage({
      input_tokens: 2,
      cache_read_input_tokens: 4_000,
      cache_creation_input_tokens: 998,
      output_tokens: 100,
    });
    meter.added("a", 6_000);
    meter.added("b", 2_000);
    meter.added("a", 6_000); // replayed on the next prompt: counted once
    meter.observeUsage({
      input_tokens: 2,
      cache_read_input_tokens: 5_100,
      cache_creation_input_tokens: 4_898,
      output_tokens: 80,
    });
    // Grew 10,000 − 5,000 − 100 = 4,900 tokens over 8,000 characters.
    assert.deepEqual([meter.tokens("a", 6_000), meter.tokens("b", 2_000)], [3_675, 1_225]);
    // Learned: (20,000 · 0.35 + 4,900) / (20,000 + 8,000) tokens a character for what is not yet measured.
    assert.equal(meter.factor, (20_000 * 0.35 + 4_900) / 28_000);
    assert.equal(meter.tokens(undefined, 1_000), Math.ceil(1_000 * meter.factor));
  });

  it("learn nothing from a prompt that shrank (a compaction) or from the first call", () => {
    const meter = new TokenMeter("claude-opus-4-6");
    meter.added("a", 4_000);
    meter.observeUsage({ input_tokens: 9_000, output_tokens: 10 });
    meter.added("b", 4_000);
    meter.observeUsage({ input_tokens: 3_000, output_tokens: 10 });
    assert.deepEqual([meter.tokens("a", 4_000), meter.tokens("b", 4_000), meter.factor], [1_400, 1_400, 0.35]);
  });

  it("send the measured size in a plan the adapters build, once a call after the output reported usage", async () => {
    const { gate } = scriptedGate({ fire: false });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6" });
    session.observe({ input_tokens: 5_000, output_tokens: 100 });
    await session.offload("c1", "read_file", "x".repeat(8_000));
    session.observe({ input_tokens: 8_100, output_tokens: 100 });
    assert.equal(session.tokensFor("c1", "x".repeat(8_000)), 3_000);
  });
});

describe("the plan cadence", () => {
  it("answers as replay and the Python client do on the vectors in clients/constants.json", async () => {
    const { readFile } = await import("node:fs/promises");
    const shared = JSON.parse(await readFile(new URL("../../constants.json", import.meta.url), "utf8"));
    assert.equal(DEFAULT_PLAN_EVERY, shared.default_plan_every);
    assert.ok(shared.plan_cadence_vectors.length >= 6);
    for (const { case: name, every, steps } of shared.plan_cadence_vectors) {
      const cadence = new PlanCadence(every);
      const answers = steps.map(([op, tokens]) =>
        op === "call" ? cadence.call() : op === "asked" ? cadence.asked(tokens) : cadence.due(tokens),
      );
      const expected = steps.map(([op, , answer]) => (op === "due" ? answer : undefined));
      assert.deepEqual(answers, expected, name);
    }
  });

  it("gates session.plan through planDue and stubs every id of one answer at once", async () => {
    const { gate, sent } = scriptedGate({ fire: false, plan: ["c1", "c2"] });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", planEvery: 2 });
    await session.offload("c1", "read_file", "x".repeat(8_000));
    await session.offload("c2", "read_file", "y".repeat(8_000));
    assert.equal(session.planDue(5_000), false);
    session.observe({ input_tokens: 10 });
    session.observe({ input_tokens: 10 });
    assert.equal(session.planDue(5_000), true);
    assert.deepEqual(await session.plan([{ tokens: 800 }, { id: "c1", tokens: 2_800 }, { id: "c2", tokens: 2_800 }]), [
      "c1",
      "c2",
    ]);
    assert.deepEqual([session.status("c1"), session.status("c2"), sent("/v1/plan").length], ["stubbed", "stubbed", 1]);
    assert.deepEqual([session.planDue(5_599), session.planDue(5_600)], [false, true]);
  });
});
