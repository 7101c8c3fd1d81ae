import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, beforeEach, vi } from "vitest";
import { replayPriorsKey } from "../../src/storage/rules/keys";
import { forgetLearned } from "../../src/storage/learning";
import { adminCall } from "../support/admin-helpers";
import { OPUS } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// The replay level (docs/design/learning.md §2.1 and §2.5): priors measured from history, imported per tool
// and size band, between the config and the tenant's own outcomes.
const none = { p_n: 0, p_r: 0, h_n: 0, h_sum: 0, h_sumsq: 0, q_n: 0, q_cached: 0, q_turns: 0 };
const READ_FILE = { ...none, p_n: 40, p_r: 8, h_n: 40, h_sum: 320, h_sumsq: 2_800 };
// Every stubbed output also stayed some turns in the history: p_n ≤ h_n, as a replayed band always has (src/learning/pool/pool.ts).
const SMALL = { ...none, p_n: 30, p_r: 27, h_n: 30, h_sum: 240, h_sumsq: 2_100 };
const PRIORS = { version: 1, source: "replay", tools: { read_file: { sums: READ_FILE, bands: { lt2k: SMALL } } } };
const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: "read_file" };
const w = 10;

const importPriors = (body: unknown, tenant = "default") =>
  adminCall("POST", `/v1/admin/learning/import?tenant=${tenant}`, body);

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  forgetLearned();
});

describe("importing replay priors", () => {
  it("makes a new tenant's gate answer from the replay level, weighted by n like any level", async () => {
    const res = await importPriors(PRIORS);
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({
      tenant: "default",
      tools: 1,
      version: 1,
      changed: true,
      refresh: { status: "published" },
    });

    const answer = await (await postJson("/v1/gate", GATE)).json<any>();
    expect(answer.priors.recall_probability).toEqual({ value: (w * 0.25 + 8) / (w + 40), source: "replay", n: 40 });
    expect(answer.priors.horizon).toEqual({ value: (w * 4 + 320) / (w + 40), source: "replay", n: 40 });
    expect(answer.priors.cache_hit_rate).toEqual({ value: 0.9, source: "config", n: 0 });
  });

  it("lets the output's size band pick its own p, and a band with nothing imported pass its tool's through", async () => {
    await importPriors(PRIORS);
    const tool = (w * 0.25 + 8) / (w + 40);
    const small = await (await postJson("/v1/gate", { ...GATE, output_tokens: 1_500 })).json<any>();
    expect(small.priors.recall_probability).toEqual({ value: (w * tool + 27) / (w + 30), source: "replay", n: 30 });
    const medium = await (await postJson("/v1/gate", { ...GATE, output_tokens: 5_000 })).json<any>();
    expect(medium.priors.recall_probability).toEqual({ value: tool, source: "replay", n: 40 });
  });

  it("hands over to the tenant's own outcomes as they accumulate", async () => {
    await importPriors(PRIORS);
    const items = [];
    for (let i = 0; i < 60; i++) {
      const decided = await (await callWorker("/v1/gate", { json: { ...GATE, session_id: `s-${i}` } })).json<any>();
      expect(decided.fire).toBe(true);
      items.push({ decision_id: decided.decision_id, turns_after: 6, recalled: i < 30 });
    }
    expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});
    const answer = await (await postJson("/v1/gate", GATE)).json<any>();
    const replayed = (w * 0.25 + 8) / (w + 40);
    expect(answer.priors.recall_probability.source).toBe("learned");
    expect(answer.priors.recall_probability.n).toBe(60);
    // The tool over the replay level; tool × model and the tenant's own size band hold exactly the
    // tool's 60 outcomes (one model, one band), so they add nothing: each outcome counts once.
    const tool = (w * replayed + 30) / (w + 60);
    expect(answer.priors.recall_probability.value).toBeCloseTo(tool, 12);
  });

  it("shows the replay level in the learning view", async () => {
    await importPriors(PRIORS);
    const view = await (await callWorker("/v1/learning")).json<any>();
    expect(view.tools).toHaveLength(1);
    expect(view.tools[0]).toMatchObject({
      tool_name: "read_file",
      replay: { recall_probability: 40, horizon: 40, cache_hit_rate: 0 },
      n: { recall_probability: 0 },
    });
    expect(view.tools[0].priors.recall_probability.source).toBe("replay");
  });

  it("is audited with history, and rolls back (applied at the next refresh)", async () => {
    await importPriors(PRIORS);
    const again = await (await importPriors(PRIORS)).json<any>();
    expect(again).toMatchObject({ version: 1, changed: false });
    const history = await (await adminCall("GET", "/v1/admin/learning/import/default/history")).json<any>();
    expect(history).toMatchObject({ subject: replayPriorsKey("default"), current_version: 1 });
    expect(history.versions[0]).toMatchObject({ action: "put", by: "ops-alice", before: null, after: PRIORS });

    const rolled = await adminCall("POST", "/v1/admin/learning/import/default/rollback", { version: 0 });
    expect(rolled.status).toBe(200);
    expect(await rolled.json<any>()).toMatchObject({ tools: 0, version: 2, changed: true });
    expect(await env.PRICING.get(replayPriorsKey("default"))).toBeNull();
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});
    const answer = await (await postJson("/v1/gate", GATE)).json<any>();
    expect(answer.priors.recall_probability).toEqual({ value: 0.25, source: "config", n: 0 });
  });

  it("keeps a tool named after a built-in property as an ordinary tool", async () => {
    const body = JSON.parse(
      `{"version":1,"source":"replay","tools":{"__proto__":{"sums":${JSON.stringify(READ_FILE)}}}}`,
    );
    expect((await importPriors(body)).status).toBe(200);
    const answer = await (await postJson("/v1/gate", { ...GATE, tool_name: "__proto__" })).json<any>();
    expect(answer.priors.recall_probability.source).toBe("replay");
    const other = await (await postJson("/v1/gate", { ...GATE, tool_name: "constructor" })).json<any>();
    expect(other.priors.recall_probability.source).toBe("config");
  });

  it.each([
    ["version", { ...PRIORS, version: 2 }],
    ["source", { ...PRIORS, source: "ledger" }],
    ["tools.read_file.sums.p_r", { ...PRIORS, tools: { read_file: { sums: { ...READ_FILE, p_r: -1 } } } }],
    ["tools.read_file.bands", { ...PRIORS, tools: { read_file: { sums: READ_FILE, bands: { huge: SMALL } } } }],
    ["tools.bad name", { ...PRIORS, tools: { "bad name": { sums: READ_FILE } } }],
    ["tools.read_file.sums", { ...PRIORS, tools: { read_file: { sums: { ...READ_FILE, p_r: 41 } } } }],
  ])("refuses a body whose %s is wrong with a 400 naming it", async (path, body) => {
    const res = await importPriors(body);
    expect(res.status).toBe(400);
    const error = await res.json<any>();
    expect(error.error.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it("refuses a missing tenant with a 400 naming it", async () => {
    const res = await adminCall("POST", "/v1/admin/learning/import", PRIORS);
    expect(res.status).toBe(400);
    expect((await res.json<any>()).error.issues.map((i: { path: string }) => i.path)).toContain("tenant");
  });

  it("leaves out a corrupt stored value, so the gate decides on the config", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await env.PRICING.put(replayPriorsKey("default"), '{"version":1');
    expect((await (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>()).status).toBe(
      "published",
    );
    const answer = await (await postJson("/v1/gate", GATE)).json<any>();
    expect(answer.priors.recall_probability.source).toBe("config");
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("replay-priors:default is invalid"));
  });
});
