import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { learningAcksKey, learningKey } from "../../src/storage/rules/keys";
import { forgetLearned } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";
import { adminCall } from "../support/admin-helpers";
import { OPUS } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// Reporting that can be trusted (docs/design/learning.md §3.5), on the worker: a tool whose reporting raises a
// flag has its p set aside until ops acknowledge it, through an audited admin write.
const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: "read_file" };
const ACKS = "/v1/admin/learning/acks/default";
const refresh = () => adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});
const view = async () =>
  (await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>()).tools.find(
    (t: any) => t.tool_name === "read_file",
  );
const answerP = async () =>
  (await (await postJson("/v1/gate", { ...GATE, session_id: "probe-1" })).json<any>()).priors.recall_probability;

/** 60 fired decisions; outcomes for `reported` of them, each `recalled`. */
async function play(reported: number, recalled: (i: number) => boolean) {
  const batch = Array.from({ length: 60 }, (_, i) => ({ ...GATE, session_id: `t-${i}` }));
  const { decisions } = await (await callWorker("/v1/gate/batch", { json: { items: batch } })).json<any>();
  const items = [];
  for (const [i, d] of decisions.entries()) {
    expect(d.fire).toBe(true);
    if (i < reported) items.push({ decision_id: d.decision_id, turns_after: 5, recalled: recalled(i) });
  }
  expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
  expect((await refresh()).status).toBe(200);
  forgetLearned();
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await env.PRICING.put("config:gate", JSON.stringify({ learning_explore_fraction: 0 }));
  forgetPricing();
  forgetLearned();
});

describe("reporting that can be trusted, on the worker", { timeout: 30_000 }, () => {
  it("publishes no flags for an agent that reports every decision, and learns its p", async () => {
    await play(60, (i) => i % 3 === 0);
    const published = JSON.parse((await env.PRICING.get(learningKey("default")))!);
    expect(published).not.toHaveProperty("trust");
    expect((await view()).trust).toBeNull();
    expect((await answerP()).source).toBe("learned");
  });

  it("sets a flagged tool's p aside until ops acknowledge it, and says so in the answer and the view", async () => {
    // Only recalled decisions reported, every one of them recalled: p would read 1.
    await play(55, () => true);
    const tool = await view();
    expect(tool.trust).toEqual({
      flags: [{ flag: "recalled_all", detail: "all 55 fired decisions with an outcome were recalled" }],
      acknowledged: false,
    });
    expect(tool.priors.recall_probability).toMatchObject({ value: 0.25, source: "unverified", n: 0 });
    expect(await answerP()).toEqual({ value: 0.25, source: "unverified", n: 0 });
    // h is still learned: every decision observes it, and the flag is about p.
    expect(tool.priors.horizon.source).toBe("learned");

    const acked = await adminCall("PUT", ACKS, { tool_name: "read_file", acknowledged: true });
    expect(acked.status).toBe(200);
    const body = await acked.json<any>();
    expect(body).toMatchObject({ tenant: "default", acks: { read_file: true }, version: 1, changed: true });
    expect(body.refresh.status).toBe("published");
    forgetLearned();
    expect((await view()).trust.acknowledged).toBe(true);
    const learned = await answerP();
    expect(learned.source).toBe("learned");
    // Pooled config → tool at w = 10 on 55 recalls of 55; tool × model and tool × size band hold the
    // same 55 outcomes and add nothing (each outcome counts once).
    expect(learned.value).toBeCloseTo((10 * 0.25 + 55) / 65, 12);

    // Audited: the history lists the change, and a rollback to version 0 withdraws it.
    const history = await (await adminCall("GET", `${ACKS}/history`)).json<any>();
    expect(history).toMatchObject({ subject: "learning-acks:default", current_version: 1 });
    expect(history.versions[0]).toMatchObject({ action: "put", by: "ops-alice" });
    expect((await adminCall("POST", `${ACKS}/rollback`, { version: 0 })).status).toBe(200);
    expect(await env.PRICING.get(learningAcksKey("default"))).toBeNull();
    await refresh();
    forgetLearned();
    expect((await answerP()).source).toBe("unverified");
  });

  it("refuses a bad acknowledgement with a 400 naming the field, and an unknown tool with a 404", async () => {
    const bad = await adminCall("PUT", ACKS, { tool_name: "read_file", acknowledged: "yes" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("acknowledged");
    const missing = await adminCall("PUT", ACKS, { acknowledged: true });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toContain("tool_name");
    const unknown = await adminCall("PUT", ACKS, { tool_name: "never_seen", acknowledged: true });
    expect(unknown.status).toBe(404);
    expect((await adminCall("PUT", ACKS, { tool_name: "read_file", acknowledged: true }, null)).status).toBe(401);
  });
});
