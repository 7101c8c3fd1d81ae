import { beforeEach, describe, expect, it } from "vitest";
import { bestClearing, clearedBy, decideClearing, type ClearingInputs } from "../../../src/gate";
import { WORKED_EXAMPLE_CLEARING } from "../../../src/routes/plan/context-schema";
import { OPUS, postJson, putRow, resetState } from "../../support/helpers";

// The figures below were priced by hand from the plan's formula (python3,
// independently of src/gate): Opus rates, q = 0.9, H = 4, m = 1.075e-6 per
// token per later turn, a recall hop of 2,000 written + 500 out = $0.025. Appended (the default), a
// recall reads the history after its placeholder too; in place it writes it: per cleared result the
// two differ by p · A · (6.25e-6 − 1.075e-6), $0.09961875 on P1.

const PRICED = { status: "priced", row: OPUS, canonical: "claude-opus-4-6" } as const;
const PRIORS = { model_name: "claude-opus-4-6", horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 };

/** A small grep result early, a long fixed stretch, a big web page late: clearing the grep rewrites the stretch. */
const EARLY_GREP: ClearingInputs = {
  ...PRIORS,
  recall_placement: "in_place",
  segments: [
    { tokens: 8_000 },
    { id: "g", tokens: 12_000, tool_name: "grep" },
    { tokens: 150_000 },
    { id: "w", tokens: 60_000, tool_name: "web_fetch" },
    { tokens: 2_000 },
  ],
};

const postClearing = (body: unknown) => postJson("/v1/context-management", body);

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("clearedBy", () => {
  it("clears every tool result but the most recent keep, less the excluded tools'", () => {
    const segments = [
      { id: "a", tokens: 1, tool_name: "grep" },
      { tokens: 5 },
      { id: "b", tokens: 1, tool_name: "read" },
      { id: "c", tokens: 1, tool_name: "grep" },
    ];
    expect(clearedBy(segments, 0, new Set())).toEqual([0, 2, 3]);
    expect(clearedBy(segments, 1, new Set())).toEqual([0, 2]);
    expect(clearedBy(segments, 1, new Set(["grep"]))).toEqual([2]);
    expect(clearedBy(segments, 3, new Set())).toEqual([]);
  });
});

describe("bestClearing", () => {
  it("clears all three of worked example P1's results, for the hand-priced $0.282702625 when recalls append", () => {
    const choice = bestClearing({ ...WORKED_EXAMPLE_CLEARING, recall_probability: 0.25 }, OPUS)!;
    expect(choice.cleared).toEqual(["c1", "c2", "c3"]);
    expect(choice.terms.planCost).toBeCloseTo(0.153747375, 12);
    expect(choice.terms.net).toBeCloseTo(0.282702625, 12);
  });

  it("clears all three of worked example P1's results, for the hand-priced $0.183083875 when recalls restore in place", () => {
    const choice = bestClearing(
      { ...WORKED_EXAMPLE_CLEARING, recall_probability: 0.25, recall_placement: "in_place" },
      OPUS,
    )!;
    expect(choice.cleared).toEqual(["c1", "c2", "c3"]);
    expect(choice.terms.keepCost).toBeCloseTo(0.43645, 12);
    // Each recall hop reads the cache up to its placeholder and writes what follows it (docs/economics.md).
    expect(choice.terms.planCost).toBeCloseTo(0.253366125, 12);
    expect(choice.terms.net).toBeCloseTo(0.183083875, 12);
    expect(choice.edit).toEqual({
      type: "clear_tool_uses_20250919",
      trigger: { type: "input_tokens", value: 101_499 },
      keep: { type: "tool_uses", value: 0 },
      // 87,000 tokens of results less three 10-token placeholders.
      clear_at_least: { type: "input_tokens", value: 86_970 },
      exclude_tools: [],
    });
  });

  it("excludes an early tool whose clearing would rewrite a long cached stretch", () => {
    const choice = bestClearing(EARLY_GREP, OPUS)!;
    expect(choice.edit.exclude_tools).toEqual(["grep"]);
    expect(choice.cleared).toEqual(["w"]);
    // By hand: clearing w alone nets +$0.19249275 (its hop writes the 2,000 tokens after it); clearing both loses.
    expect(choice.terms.net).toBeCloseTo(0.19249275, 12);
    expect(choice.considered).toBeGreaterThan(4);
  });
});

describe("decideClearing", () => {
  it("recommends no edit when the best rule loses money, and says what the plan would save", () => {
    const losing: ClearingInputs = {
      ...PRIORS,
      horizon: 1,
      segments: [{ tokens: 8_000 }, { id: "a", tokens: 1_000, recall_probability: 1 }, { tokens: 90_000 }],
    };
    const outcome = decideClearing(losing, PRICED);
    expect(outcome).toMatchObject({ context_management: null, reason_code: "clear_not_positive", cleared: ["a"] });
    expect(outcome.net_usd).toBeLessThan(0);
    expect(outcome.left_on_table_usd).toBe(outcome.plan.net_saving_usd);
  });

  it("never recommends an edit it could not price", () => {
    expect(decideClearing(EARLY_GREP, { status: "unpriced" }).context_management).toBeNull();
    expect(decideClearing(EARLY_GREP, { status: "unavailable", detail: "KV timed out" })).toMatchObject({
      context_management: null,
      reason_code: "pricing_unavailable",
    });
    const noRead = { status: "priced", row: { input: 5, output: 25 }, canonical: "m" } as const;
    expect(decideClearing(EARLY_GREP, noRead)).toMatchObject({
      context_management: null,
      reason_code: "pricing_incomplete",
    });
  });
});

describe("POST /v1/context-management", () => {
  it("answers the edit to send, what it clears and saves, and the plan's optimum beside it", async () => {
    const res = await postClearing(WORKED_EXAMPLE_CLEARING);
    expect(res.status).toBe(200);
    const answer = await res.json<any>();
    expect(answer.reason_code).toBe("clear_positive");
    expect(answer.context_management.edits).toEqual([answer.edit]);
    expect(answer.cleared).toEqual(["c1", "c2", "c3"]);
    expect(answer.net_usd).toBeCloseTo(0.282702625, 12);
    expect(answer.inputs.recall_placement).toBe("append");
    // /v1/plan's own answer to the same history: its 200-token stubs net $0.2773.
    const plan = await (
      await postJson("/v1/plan", {
        ...WORKED_EXAMPLE_CLEARING,
        segments: WORKED_EXAMPLE_CLEARING.segments.map(({ tool_name: _, ...s }: Record<string, unknown>) => s),
        dry_run: true,
      })
    ).json<any>();
    expect(answer.plan).toEqual({
      stub: plan.stub,
      net_saving_usd: plan.net_saving_usd,
      reason_code: plan.reason_code,
    });
    expect(answer.left_on_table_usd).toBeCloseTo(plan.net_saving_usd - answer.net_usd, 12);
    expect(answer.priced_as.model).toBe("claude-opus-4-6");
    expect(answer.inputs).toMatchObject({ horizon: 4, placeholder_tokens: 10, history_tokens: 101_500 });
  });

  it("answers no_tool_results without reading pricing when no segment has an id", async () => {
    const answer = await (
      await postClearing({ model_name: "mystery-model", segments: [{ tokens: 50_000 }] })
    ).json<any>();
    expect(answer).toMatchObject({
      reason_code: "no_tool_results",
      context_management: null,
      edit: null,
      priced_as: null,
    });
  });

  it("refuses a tool_name on fixed context and a repeated id, naming each field", async () => {
    const res = await postClearing({
      model_name: "claude-opus-4-6",
      segments: [
        { tokens: 10, tool_name: "grep" },
        { id: "a", tokens: 10 },
        { id: "a", tokens: 10 },
      ],
      placeholder_tokens: -1,
    });
    expect(res.status).toBe(400);
    const paths = (await res.json<any>()).error.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(["placeholder_tokens", "segments.0.tool_name", "segments.2.id"]);
  });
});
