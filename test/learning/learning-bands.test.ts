/**
 * @module test/learning/learning-bands
 *
 * Size bands (docs/design/learning.md §2.1): p learned per tool and size band from the tenant's own
 * outcomes (src/ledger/shard/band-sums.ts → src/learning/refresh/merge.ts → the
 * chain's last level, src/learning/chain.ts). Through the worker: decisions,
 * outcomes, a refresh, then the gate's answers and GET /v1/learning.
 */
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { learnPriors } from "../../src/learning/pool";
import { learningKey } from "../../src/storage/rules/keys";
import { forgetLearned } from "../../src/storage/learning";
import { parseLearned } from "../../src/storage/schemas/learning-schema";
import { adminCall } from "../support/admin-helpers";
import { OPUS } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

const ROOT = { horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 };
const BASE = { model_name: "claude-opus-4-6", tool_name: "read_file", pricing_mode: "cache_aware" };
// Priors sent while teaching, so every decision fires whatever was learned before.
const SENT = { horizon: 4, recall_probability: 0.25, context_tokens: 0, large_offload_threshold_tokens: 0 };
const sums = (p_n: number, p_r: number, h = true) => ({
  p_n,
  p_r,
  h_n: h ? p_n : 0,
  h_sum: h ? 6 * p_n : 0,
  h_sumsq: h ? 36 * p_n : 0,
  q_n: 0,
  q_cached: 0,
  q_turns: 0,
});

/** `n` fired decisions of `tokens`-token outputs, `recalled` of them recalled, each reported 6 turns after. */
async function teach(tokens: number, n: number, recalled: number, tag: string) {
  const items = [];
  for (let i = 0; i < n; i++) {
    const res = await callWorker("/v1/gate", {
      json: { ...BASE, ...SENT, output_tokens: tokens, session_id: `${tag}-${i}` },
    });
    const body = await res.json<any>();
    expect(body.fire, `${tokens} tokens`).toBe(true);
    items.push({ decision_id: body.decision_id, turns_after: 6, recalled: i < recalled });
  }
  expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
}

async function refresh() {
  const report = await (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>();
  expect(report.status).toBe("published");
}

beforeEach(async () => {
  await reset();
  await resetState();
  forgetLearned();
  await putRow("claude-opus-4-6", OPUS);
});

describe("p per size band, learned from the tenant's own outcomes", () => {
  it("learns two different p's when small outputs are rarely recalled and large ones often", async () => {
    await teach(1_000, 20, 2, "small");
    await teach(20_000, 20, 16, "large");
    await refresh();
    // By hand: the tool level at (10 · 0.25 + 18) ÷ 50; tool × model holds the same 40 outcomes and adds
    // nothing (each outcome counts once); each band's 20 are a strict subset and pool on top.
    const model = (10 * 0.25 + 18) / 50;
    const small = (10 * model + 2) / 30;
    const large = (10 * model + 16) / 30;
    const at = async (output_tokens: number) =>
      (await (await postJson("/v1/gate", { ...BASE, output_tokens })).json<any>()).priors.recall_probability;
    expect(await at(1_000)).toEqual({ value: small, source: "learned", n: 20 });
    expect(await at(40_000)).toEqual({ value: large, source: "learned", n: 20 });
    expect(large - small).toBeGreaterThan(0.4);
    // 2k-10k saw no fired outcome: it passes the tool × model value through.
    expect(await at(5_000)).toEqual({ value: model, source: "learned", n: 40 });
  });

  it("shows each band in GET /v1/learning, a band with no data showing its parent's value", async () => {
    await teach(1_000, 10, 1, "small");
    await teach(20_000, 10, 9, "large");
    await refresh();
    const view = await (await callWorker("/v1/learning")).json<any>();
    const tool = view.tools.find((t: any) => t.tool_name === "read_file");
    expect(tool.bands.map((b: any) => [b.band, b.n])).toEqual([
      ["lt2k", 10],
      ["2k-10k", 0],
      ["ge10k", 10],
    ]);
    // The view pools tool then band (no model), as for a decision of that size.
    const toolSums = sums(20, 10);
    const [lt2k, mid, ge10k] = tool.bands.map((b: any) => b.recall_probability);
    expect(lt2k.value).toBe(learnPriors(ROOT, [toolSums, sums(10, 1, false)], 10).recall_probability.value);
    expect(ge10k.value).toBe(learnPriors(ROOT, [toolSums, sums(10, 9, false)], 10).recall_probability.value);
    expect(mid).toEqual(tool.priors.recall_probability);
    expect(lt2k.range[0]).toBeLessThan(lt2k.value);
  });

  it("reads a stored value written before bands as it did, and refuses a band whose recalls exceed its outputs", async () => {
    const value = {
      version: 1,
      tenant: "default",
      computed_at: 1,
      window: { from: 0, to: 1 },
      tenant_sums: sums(4, 1),
      tools: { read_file: { sums: sums(4, 1), models: { "claude-opus-4-6": sums(4, 1) } } },
      breakers: {},
    };
    expect(parseLearned("default", JSON.stringify(value)).value?.tools.read_file?.bands).toBeUndefined();
    const bad = structuredClone(value) as any;
    bad.tools.read_file.bands = { lt2k: { p_n: 1, p_r: 2 } };
    expect(parseLearned("default", JSON.stringify(bad))).toMatchObject({ value: null });
    expect(parseLearned("default", JSON.stringify(bad)).problem).toContain("p_r exceeds p_n");
    // Through the gate: the value without bands decides at the tool × model level.
    await env.PRICING.put(learningKey("default"), JSON.stringify(value));
    forgetLearned();
    const answer = await (await postJson("/v1/gate", { ...BASE, output_tokens: 1_000 })).json<any>();
    // Tool and tool × model hold the same 4 outcomes: they count once, (2.5 + 1) ÷ (10 + 4).
    expect(answer.priors.recall_probability).toEqual({ value: 3.5 / 14, source: "learned", n: 4 });
  });
});
