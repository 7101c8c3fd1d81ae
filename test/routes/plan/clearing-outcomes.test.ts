import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { clearingPlanOf } from "../../../src/ledger/model/clearing-net";
import { WORKED_EXAMPLE_CLEARING } from "../../../src/routes/plan/context-schema";
import { OPUS, putRow, resetState } from "../../support/helpers";
import { callWorker } from "../../support/ledger-fixtures";

// A clearing decision's outcome end to end: POST /v1/context-management → POST /v1/outcomes with
// what the response's applied_edits said → GET /v1/savings. The figures were priced by hand
// (python3, independently of src/): Opus, q = 1 (every turn cached), h = 4, no recall (server-side
// clearing has none): keep = total × 4 × $0.5/M; clear = prefix × 4 × $0.5/M + the rest × ($6.25 + 3 × $0.5)/M.

const SESSION = { ...WORKED_EXAMPLE_CLEARING, session_id: "clearing-1" };

async function clearing(body: Record<string, unknown> = SESSION) {
  const res = await callWorker("/v1/context-management", { json: body, key: "agents-prod" });
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

async function outcomes(items: unknown[]) {
  const res = await callWorker("/v1/outcomes", { json: { items }, key: "agents-prod" });
  return { status: res.status, body: await res.json<Record<string, any>>() };
}

const savings = async () => (await callWorker("/v1/savings", { key: "agents-prod" })).json<Record<string, any>>();

afterEach(() => {
  vi.restoreAllMocks();
});

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("a clearing decision's outcome", () => {
  it("is what the API cleared, priced by the plan's formula in the savings report", async () => {
    const answer = await clearing();
    expect(answer.reason_code).toBe("clear_positive");
    expect(answer.decision_id).toMatch(/^dec_\d+_[0-9a-f]{32}$/);
    // All three results cleared: 87,000 tokens less three 10-token placeholders.
    const { body } = await outcomes([
      {
        decision_id: answer.decision_id,
        turns_after: 4,
        recalled: false,
        cached_turns: 4,
        cleared_tool_uses: 3,
        cleared_input_tokens: 86_970,
      },
    ]);
    expect(body.results).toEqual([{ status: "accepted", repeated: false }]);
    const report = await savings();
    expect(report).toMatchObject({ decisions: 1, fired: 1, outcomes: 1, net: { fired_with_outcome: 1 } });
    // keep 101,500 × 4 × 0.5e-6 = 0.203; clear 8,000 × 4 × 0.5e-6 + 14,530 × 7.75e-6 = 0.0666075.
    expect(report.net.realized_usd).toBeCloseTo(0.1363925, 10);
    expect(report.net.predicted_usd).toBeCloseTo(answer.net_usd, 10);
  });

  it("prices fewer cleared results than were priced as the oldest ones, at the API's token count", async () => {
    const answer = await clearing();
    await outcomes([
      {
        decision_id: answer.decision_id,
        turns_after: 4,
        recalled: false,
        cached_turns: 4,
        cleared_tool_uses: 2,
        cleared_input_tokens: 56_980,
      },
    ]);
    // c1 and c2 cleared, c3 kept: clear 8,000 × 4 × 0.5e-6 + 36,520 × 7.75e-6 = 0.29903, so it lost 0.09603.
    expect((await savings()).net.realized_usd).toBeCloseTo(-0.09603, 10);
  });

  it("sizes the cleared results by the API's count when it differs from the request's estimate", async () => {
    const answer = await clearing();
    await outcomes([
      {
        decision_id: answer.decision_id,
        turns_after: 4,
        recalled: false,
        cached_turns: 4,
        cleared_tool_uses: 2,
        cleared_input_tokens: 28_490,
      },
    ]);
    // c1 and c2 were 21,007 + 7,503 = 28,510 tokens (28,490 + two placeholders, split 42:15), so the history
    // was 73,010: keep 73,010 × 4 × 0.5e-6 = 0.14602; clear 0.016 + 36,520 × 7.75e-6 = 0.29903.
    expect((await savings()).net.realized_usd).toBeCloseTo(-0.15301, 10);
  });

  it("is zero when the edit never triggered: nothing was cleared", async () => {
    const answer = await clearing();
    await outcomes([
      {
        decision_id: answer.decision_id,
        turns_after: 3,
        recalled: false,
        cleared_tool_uses: 0,
        cleared_input_tokens: 0,
      },
    ]);
    expect((await savings()).net).toMatchObject({ fired_with_outcome: 1, realized_usd: 0 });
  });

  it("refuses cleared fields on a plan's outcome and a recall or missing fields on a clearing's, naming each", async () => {
    const answer = await clearing();
    const plan = await (
      await callWorker("/v1/plan", {
        json: { ...SESSION, segments: SESSION.segments.map(({ tool_name: _, ...s }: Record<string, unknown>) => s) },
        key: "agents-prod",
      })
    ).json<Record<string, any>>();
    const { status, body } = await outcomes([
      { decision_id: plan.decision_id, turns_after: 4, recalled: false, recalled_ids: [], cleared_tool_uses: 1 },
      { decision_id: answer.decision_id, turns_after: 4, recalled: false, cleared_tool_uses: 1 },
      {
        decision_id: answer.decision_id,
        turns_after: 4,
        recalled: true,
        cleared_tool_uses: 1,
        cleared_input_tokens: 5,
      },
    ]);
    expect(status).toBe(200);
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(["invalid", "invalid", "invalid"]);
    expect(body.results.map((r: { issues: { path: string }[] }) => r.issues[0]!.path)).toEqual([
      "cleared_tool_uses",
      "cleared_input_tokens",
      "recalled",
    ]);
  });

  it("refuses a negative or fractional count, naming its path", async () => {
    const answer = await clearing();
    const { body } = await outcomes([
      {
        decision_id: answer.decision_id,
        turns_after: 4,
        recalled: false,
        cleared_tool_uses: -1,
        cleared_input_tokens: 0,
      },
      {
        decision_id: answer.decision_id,
        turns_after: 4,
        recalled: false,
        cleared_tool_uses: 1,
        cleared_input_tokens: 2.5,
      },
    ]);
    expect(body.results.map((r: { issues: { path: string }[] }) => r.issues.map((i) => i.path))).toEqual([
      ["items.0.cleared_tool_uses"],
      ["items.1.cleared_input_tokens"],
    ]);
    expect(body.invalid).toBe(2);
  });

  it("writes one data point in the documented layout, its id in blob7", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const answer = await clearing();
    expect(write).toHaveBeenCalledTimes(1);
    const point = write.mock.calls[0]![0]!;
    expect(point.blobs).toEqual([
      "claude-opus-4-6",
      "claude-opus-4-6",
      "clear_positive",
      "clearing",
      "",
      answer.reason,
      answer.decision_id,
      "",
      "clearing-1",
      "retroactive",
      "5m",
      "",
      "",
      "",
    ]);
    expect(point.doubles).toEqual([
      1,
      answer.net_usd,
      answer.keep_cost_usd,
      answer.clear_cost_usd,
      3,
      3,
      4,
      answer.inputs.recall_probability,
      0,
      10,
      answer.inputs.recall_input_tokens,
      answer.inputs.recall_output_tokens,
      0,
      86_970,
      0.9,
      101_500,
      87_000,
      7,
      answer.left_on_table_usd,
    ]);
  });

  it("has no id in a dry run, and nothing reaches the ledger or the dataset", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const answer = await clearing({ ...SESSION, dry_run: true });
    expect(write).not.toHaveBeenCalled();
    expect(answer).toMatchObject({ dry_run: true, reason_code: "clear_positive" });
    expect(answer).not.toHaveProperty("decision_id");
    expect((await savings()).decisions).toBe(0);
  });

  it("sends no edit in the holdout, and prices the counterfactual of the one it would have sent", async () => {
    await env.PRICING.put("config:gate", JSON.stringify({ holdout_fraction: 0.5 }));
    const { forgetPricing } = await import("../../../src/storage/read");
    forgetPricing();
    let held: Record<string, any> | undefined;
    for (let i = 0; i < 40 && held === undefined; i++) {
      const answer = await clearing({ ...SESSION, session_id: `held-${i}` });
      if (answer.reason_code === "holdout") held = answer;
    }
    expect(held).toMatchObject({ context_management: null, cleared: ["c1", "c2", "c3"] });
    expect(held!.left_on_table_usd).toBe(held!.plan.net_saving_usd);
    const { body } = await outcomes([
      {
        decision_id: held!.decision_id,
        turns_after: 4,
        recalled: false,
        cleared_tool_uses: 2,
        cleared_input_tokens: 9,
      },
      {
        decision_id: held!.decision_id,
        turns_after: 4,
        recalled: false,
        cleared_tool_uses: 0,
        cleared_input_tokens: 0,
      },
    ]);
    expect(body.results[0].issues[0].path).toBe("cleared_tool_uses");
    expect(body.results[1]).toEqual({ status: "accepted", repeated: false });
  });
});

describe("clearingPlanOf", () => {
  const plan = {
    segments: [
      { id: "a", tokens: 10_000, tool_name: "grep" },
      { id: "b", tokens: 30_000, tool_name: "read" },
      { tokens: 500 },
      { id: "c", tokens: 20_000, tool_name: "read" },
    ],
    stub: ["b"],
    large_offload_threshold_tokens: 0,
  };
  const clearingRule = { keep: 1, exclude_tools: ["grep"], placeholder_tokens: 10 };
  const outcome = { decision_id: "d", turns_after: 4, recalled: false };

  it("takes the oldest results an excluded tool did not produce, scaled to free what the API said", () => {
    const carried = clearingPlanOf(plan, clearingRule, true, {
      ...outcome,
      cleared_tool_uses: 2,
      cleared_input_tokens: 24_980,
    })!;
    expect(carried.stub).toEqual(["b", "c"]);
    // 25,000 removed (24,980 + two placeholders) split 30:20, the last taking the rest.
    expect(carried.segments.map((s) => s.tokens)).toEqual([10_000, 15_000, 500, 10_000]);
    expect(carried.segments[1]).toMatchObject({ stub_tokens: 10 });
  });

  it("clears nothing when the API cleared nothing", () => {
    expect(clearingPlanOf(plan, clearingRule, true, { ...outcome, cleared_tool_uses: 0 })).toBeNull();
  });
});
