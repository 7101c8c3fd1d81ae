// The OpenAI Agents SDK filter's plan, against a scripted gate (fetch), no
// network: outputs sent in full before a call (already cached) are the plan's
// candidates at the session's cadence, and all of its stubs go in on one call.
// Runs on the built dist/ with `node --test`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createGateClient, OffloadSession } from "../dist/index.js";
import { offloadInputFilter } from "../dist/openai-agents.js";

const json = (body) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

describe("the OpenAI Agents SDK filter's plan", () => {
  it("stubs every output the plan names on one call, once they were sent in full and the plan is due", async () => {
    const sent = [];
    let n = 0;
    const fetch = async (url, init) => {
      const path = new URL(url).pathname;
      sent.push({ path, body: JSON.parse(init.body) });
      const decision_id = `dec_0_${(++n).toString(16).padStart(32, "0")}`;
      // Each output is kept on entry; the plan stubs both.
      if (path === "/v1/gate") return json({ fire: false, reason_code: "net_not_positive", decision_id });
      return json({ stub: ["call_1", "call_2"], reason_code: "plan_positive", net_saving_usd: 0.2, decision_id });
    };
    const session = new OffloadSession({
      gate: createGateClient({ baseUrl: "http://gate.test", fetch }),
      model: "gpt-5",
      planEvery: 1,
    });
    const results = [1, 2].map((i) => ({
      type: "function_call_result",
      callId: `call_${i}`,
      name: "read",
      status: "completed",
      output: i === 1 ? `${i}`.repeat(20_000) : { type: "text", text: `${i}`.repeat(20_000) },
    }));
    const input = [{ role: "user", content: "go" }, ...results];
    const filter = offloadInputFilter(session);
    const first = await filter({ modelData: { input, instructions: "" } });
    assert.deepEqual(first.input, input, "decided on entry and kept: nothing to plan yet");
    assert.deepEqual(
      sent.map((s) => s.path),
      ["/v1/gate", "/v1/gate"],
    );
    session.observe({ input_tokens: 10, output_tokens: 40, cache_creation_input_tokens: 12_000 });
    const second = await filter({ modelData: { input, instructions: "" } });
    const plans = sent.filter((s) => s.path === "/v1/plan");
    assert.equal(plans.length, 1);
    assert.deepEqual(
      plans[0].body.segments.map((s) => s.id),
      [undefined, "call_1", "call_2"],
    );
    assert.equal(second.input[1].output, session.stubFor("call_1"), "a string output gets the stub as a string");
    assert.deepEqual(
      second.input[2].output,
      { type: "text", text: session.stubFor("call_2") },
      "a text part stays one",
    );
    assert.match(session.stubFor("call_2"), /^\[offloaded: the output of read call call_2/);
    const third = await offloadInputFilter(session, { plan: false })({ modelData: { input, instructions: "" } });
    assert.deepEqual(third.input, second.input, "every later call holds the same stubs, byte for byte");
  });
});
