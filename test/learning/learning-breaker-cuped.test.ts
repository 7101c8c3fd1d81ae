import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { adminCall } from "../support/admin-helpers";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";
import { forgetLearned } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";

// The breaker (docs/design/learning.md §4.1) regresses each session's bill on the covariate it reported (CUPED,
// src/learning/refresh/opening.ts), fitted on earlier sessions only, so noise the covariate explains no
// longer hides a loss.
const TOOL = "read_file";
const GATE = { model_name: "claude-opus-4-6", horizon: 4, recall_probability: 0.3, tool_name: TOOL };
const refresh = async () => (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>();

/**
 * `n` sessions of one tool at holdout 0.5: each bill is a base, plus the tokens its idle cache
 * misses re-wrote (the covariate: 0–1.2 M tokens, $0–6, a spread many times the effect), plus
 * 60,000 tokens ($0.30) when the tool was treated. `withCovariate` decides whether the bills say so.
 */
async function sessions(n: number, withCovariate: boolean) {
  await env.PRICING.put("config:gate", JSON.stringify({ holdout_fraction: 0.5 }));
  forgetPricing();
  forgetLearned();
  const bills = [];
  for (let i = 0; i < n; i++) {
    const session_id = `cuped-${i}`;
    const body = await (
      await callWorker("/v1/gate", { json: { ...GATE, output_tokens: 20_000, session_id } })
    ).json<any>();
    const treated = body.reason_code !== "holdout";
    const misses = Math.round(600_000 + 600_000 * Math.sin(i * 2.399));
    bills.push({
      session_id,
      model_name: "claude-opus-4-6",
      turns: 5,
      usage: { input_tokens: 100_000 + misses + (treated ? 60_000 : 0), output_tokens: 1_000 },
      ...(withCovariate ? { covariate: misses } : {}),
    });
  }
  for (let i = 0; i < bills.length; i += 100)
    expect((await callWorker("/v1/sessions", { json: { items: bills.slice(i, i + 100) } })).status).toBe(200);
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("the breaker with the sessions' covariates (CUPED)", () => {
  it("opens on bills whose noise the reported covariate explains", async () => {
    await sessions(120, true);
    const report = await refresh();
    expect(report.breaker_changes).toEqual([expect.objectContaining({ tool_name: TOOL, to: "open", rule: "holdout" })]);
    // Net saving per session, positive when the tool saves: a losing tool's upper end is below 0.
    expect(report.breaker_changes[0].evidence.interval[1]).toBeLessThan(0);
    // Every judged bill carried its covariate, and the evidence says how many were adjusted.
    expect(report.breaker_changes[0].evidence.adjusted).toBe(report.breaker_changes[0].evidence.sessions);
  });

  it("stays closed on the very same bills when they report no covariate: the loss is within their noise", async () => {
    await sessions(120, false);
    const report = await refresh();
    expect(report.breaker_changes).toEqual([]);
    const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
    const breaker = view.tools.find((t: any) => t.tool_name === TOOL).breaker;
    expect(breaker).toMatchObject({ state: "closed" });
    expect(breaker.evidence.interval[1]).toBeGreaterThan(0);
    expect(breaker.evidence).not.toHaveProperty("adjusted");
  });
});
