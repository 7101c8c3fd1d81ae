import { reset } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { clearingMismatch } from "../../../src/ledger/model/clearing-net";
import { WORKED_EXAMPLE_CLEARING } from "../../../src/routes/plan/context-schema";
import { OPUS, putRow, resetState } from "../../support/helpers";
import { callWorker } from "../../support/ledger-fixtures";
import { DECISION_KEY } from "../../support/secrets";

// What a clearing decision's outcome may claim: checked against the decision it reports on. The worked
// example lists three clearable results, c1 42,000, c2 15,000, c3 30,000 tokens (87,000), none excluded.

const SESSION = { ...WORKED_EXAMPLE_CLEARING, session_id: "bounds-1" };
const KEYED = { DECISION_ID_KEY: DECISION_KEY };
const SIGNED = /^dec_\d+_[0-9a-f]{32}_[0-9a-f]{8}_[0-9a-f]{16}$/;

async function clearing(envOver: Partial<Env> = {}) {
  const res = await callWorker("/v1/context-management", { json: SESSION, key: "agents-prod" }, envOver);
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

async function outcomes(items: unknown[], envOver: Partial<Env> = {}) {
  const res = await callWorker("/v1/outcomes", { json: { items }, key: "agents-prod" }, envOver);
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

const savings = async () => (await callWorker("/v1/savings", { key: "agents-prod" })).json<Record<string, any>>();
const cleared = (decision_id: string, cleared_tool_uses: number, cleared_input_tokens: number) => ({
  decision_id,
  turns_after: 4,
  recalled: false,
  cached_turns: 4,
  cleared_tool_uses,
  cleared_input_tokens,
});
const paths = (body: Record<string, any>) =>
  body.results.map((r: { status: string; issues?: { path: string }[] }) =>
    r.status === "invalid" ? r.issues![0]!.path : r.status,
  );

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("a clearing outcome that claims more than its decision listed", () => {
  it("is invalid, naming the field, for each way the red team inflated realized savings", async () => {
    const { decision_id: id } = await clearing();
    const body = await outcomes([
      cleared(id, 1_000, 86_970),
      cleared(id, 3, 1e12),
      cleared(id, 0, 50_000),
      cleared(id, 4, 86_970),
    ]);
    expect(paths(body)).toEqual([
      "cleared_tool_uses",
      "cleared_input_tokens",
      "cleared_input_tokens",
      "cleared_tool_uses",
    ]);
    expect(body.results[0].issues[0].message).toMatch(/^must be at most 3/);
    expect(body.results[1].issues[0].message).toMatch(/^must be at most 108750/);
  });

  it("leaves nothing stored: the savings report is unchanged, and the true outcome is then accepted as the first", async () => {
    const { decision_id: id } = await clearing();
    await outcomes([cleared(id, 1_000, 1e12), cleared(id, 0, 50_000)]);
    expect(await savings()).toMatchObject({ outcomes: 0, net: { fired_with_outcome: 0, realized_usd: 0 } });
    expect((await outcomes([cleared(id, 3, 86_970)])).results[0]).toEqual({ status: "accepted", repeated: false });
    const report = await savings();
    expect(report.outcomes).toBe(1);
    // The figure the plan's formula gives all three cleared (test/routes/plan/clearing-outcomes.test.ts).
    expect(report.net.realized_usd).toBeCloseTo(0.1363925, 10);
  });

  it("allows the API's count a quarter above the request's sizes of the largest cleared results, and no more", async () => {
    const { decision_id: id } = await clearing();
    // One result cleared: at most 42,000 × 1.25 = 52,500; two: (42,000 + 30,000) × 1.25 = 90,000.
    const body = await outcomes([cleared(id, 1, 52_501), cleared(id, 2, 90_001)]);
    expect(paths(body)).toEqual(["cleared_input_tokens", "cleared_input_tokens"]);
    expect((await outcomes([cleared(id, 1, 52_500)])).results[0]).toEqual({ status: "accepted", repeated: false });
  });

  it("counts an excluded tool's results out of what the edit may clear", () => {
    const plan = {
      segments: SESSION.segments,
      stub: ["c2"],
      large_offload_threshold_tokens: 0,
      clearing: { keep: 0, exclude_tools: ["web_fetch"], placeholder_tokens: 10 },
    };
    const report = (uses: number, tokens: number) => cleared("dec_0_x", uses, tokens);
    // Only c2 (grep, 15,000 tokens) may be cleared with web_fetch excluded: at most 18,750 tokens.
    expect(clearingMismatch(plan, true, report(2, 15_000))?.path).toBe("cleared_tool_uses");
    expect(clearingMismatch(plan, true, report(1, 18_751))?.path).toBe("cleared_input_tokens");
    expect(clearingMismatch(plan, true, report(1, 18_750))).toBeNull();
    expect(clearingMismatch(plan, false, report(0, 0))).toBeNull();
  });
});

describe("POST /v1/context-management with DECISION_ID_KEY set", () => {
  it("answers a signed id, and an outcome sent before the queue delivers the decision waits for it", async () => {
    const answer = await clearing(KEYED);
    expect(answer.decision_id).toMatch(SIGNED);
    const body = await outcomes([cleared(answer.decision_id, 3, 86_970)], KEYED);
    expect(body.results[0].status).toBe("accepted");
    expect(body.unknown_decision ?? 0).toBe(0);
  });

  it("refuses tokens without uses at once, before the queued decision lands", async () => {
    const answer = await clearing(KEYED);
    const body = await outcomes([cleared(answer.decision_id, 0, 50_000)], KEYED);
    expect(paths(body)).toEqual(["cleared_input_tokens"]);
  });
});
