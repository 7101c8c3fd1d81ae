import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { unitRange } from "../../src/learning/ranges";
import { isExplore } from "../../src/ledger";
import { forgetLearned } from "../../src/store/learning";
import { forgetPricing } from "../../src/store/read";
import { adminCall } from "../support/admin-helpers";
import { OPUS } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// Exploration (issue 34 item 2): a share of each tool's sessions decides on p's lower credible bound.
const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: "read_file" };
const FRACTION = 0.3;
const sessions = (explore: boolean, n: number) => {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++)
    if (isExplore("default", `x-${i}`, GATE.tool_name, FRACTION) === explore) out.push(`x-${i}`);
  return out;
};

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  forgetPricing();
  forgetLearned();
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await putConfig({ learning_explore_fraction: FRACTION });
});
afterEach(() => vi.restoreAllMocks());

describe("exploration", () => {
  it("changes no answer for a tenant with no outcomes, however large its share", async () => {
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});
    for (const id of sessions(true, 5)) {
      const answer = await (await postJson("/v1/gate", { ...GATE, session_id: id })).json<any>();
      expect(answer.priors.recall_probability).toEqual({ value: 0.25, source: "config", n: 0 });
      expect(answer.inputs.recall_probability).toBe(0.25);
    }
  });

  it("decides an exploring session on p's lower credible bound, says so in the answer and the data point, and leaves the others alone", async () => {
    const items = [];
    for (const id of sessions(false, 20)) {
      const decided = await (await callWorker("/v1/gate", { json: { ...GATE, session_id: id } })).json<any>();
      items.push({ decision_id: decided.decision_id, turns_after: 6, recalled: items.length % 2 === 0 });
    }
    expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});

    const usual = await (await postJson("/v1/gate", { ...GATE, session_id: sessions(false, 21)[20] })).json<any>();
    expect(usual.priors.recall_probability.source).toBe("learned");
    const p = usual.priors.recall_probability;
    // The most specific level is tool × model: concentration w + n.
    const low = unitRange({ value: p.value, n: p.n, concentration: 10 + p.n }, 0.9)[0];
    expect(low).toBeLessThan(p.value);

    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const explored = await (await postJson("/v1/gate", { ...GATE, session_id: sessions(true, 1)[0] })).json<any>();
    expect(explored.priors.recall_probability).toEqual({ value: low, source: "explore", n: p.n });
    expect(explored.inputs.recall_probability).toBe(low);
    expect(write.mock.calls[0]?.[0]?.blobs?.[15]).toBe("explore");
    // The very decision a caller sending that p would get.
    const sent = await (
      await postJson("/v1/gate", { ...GATE, recall_probability: low, horizon: explored.inputs.horizon })
    ).json<any>();
    expect(explored.net_saving_usd).toBe(sent.net_saving_usd);
    expect(explored.fire).toBe(sent.fire);

    // A p the caller sends is never explored.
    const given = await (
      await postJson("/v1/gate", { ...GATE, recall_probability: 0.5, session_id: sessions(true, 1)[0] })
    ).json<any>();
    expect(given.priors.recall_probability).toEqual({ value: 0.5, source: "request", n: 0 });
  });

  it.each([0.6, -0.1, "x"])("refuses learning_explore_fraction = %j with a 400 naming it", async (value) => {
    const res = await adminCall("PUT", "/v1/admin/config", { learning_explore_fraction: value });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues.map((i: { path: string }) => i.path)).toContain(
      "learning_explore_fraction",
    );
  });
});
