import { reset } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_TOKENS } from "../../src/storage/rules";
import { WORKED_EXAMPLE_CLEARING } from "../../src/routes/plan/context-schema";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";
import { runs } from "../support/runs";

// Fuzzing a clearing decision's outcome: a fresh id each run from POST /v1/context-management (one
// that sent its edit) or POST /v1/plan, then an outcome whose applied_edits fields are plausible or
// wild, checked against what the decision listed. The seed is fixed so that a failure reproduces. (test/surface/fuzz.test.ts fuzzes the routes' bodies.)

const SEED = 20261203;

const count = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 120_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 52_500, 52_501, 90_000, 108_750, 108_751, 1e12) },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -5, max: -1 }), fc.double(), fc.jsonValue()) },
);

beforeAll(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

let run = 0;

/** A new decision of this kind: a stored outcome answers any later report (repeat or conflict), so each run needs its own. */
async function newDecision(kind: "clearing" | "plan"): Promise<string> {
  run++;
  const body =
    kind === "clearing"
      ? { ...WORKED_EXAMPLE_CLEARING, session_id: `fuzz-${run}` }
      : {
          ...WORKED_EXAMPLE_CLEARING,
          session_id: `fuzz-${run}`,
          segments: WORKED_EXAMPLE_CLEARING.segments.map(
            ({ tool_name: _, ...segment }: Record<string, unknown>) => segment,
          ),
        };
  const res = await callWorker(kind === "clearing" ? "/v1/context-management" : "/v1/plan", {
    json: body,
    key: "agents-prod",
  });
  const answer = await res.json<{ decision_id: string; reason_code: string }>();
  expect(answer.reason_code).toBe(kind === "clearing" ? "clear_positive" : "plan_positive");
  return answer.decision_id;
}

const isCount = (value: unknown) =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_TOKENS;

// What the worked example's decision listed: three clearable results, none excluded (docs/ledger.md § server-side clearing).
const LISTED = [42_000, 30_000, 15_000];
/** Whether whole counts claim no more than the decision listed: uses ≤ 3, tokens ≤ the largest that many + 25%, none without uses. */
function withinDecision(uses: number, tokens: number): boolean {
  if (uses > LISTED.length) return false;
  if (uses === 0) return tokens === 0;
  return tokens <= Math.floor(LISTED.slice(0, uses).reduce((a, b) => a + b, 0) * 1.25);
}

describe("a clearing decision's outcome under fuzzing", () => {
  it("is accepted only with two whole counts on the clearing's id, and is otherwise invalid naming a field", async () => {
    const item = fc.record(
      {
        kind: fc.constantFrom("clearing", "plan"),
        turns_after: fc.nat({ max: 8 }),
        recalled: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        cleared_tool_uses: fc.oneof({ weight: 4, arbitrary: fc.nat({ max: 5 }) }, { weight: 1, arbitrary: count }),
        cleared_input_tokens: count,
      },
      { requiredKeys: ["kind", "turns_after", "recalled"] },
    );
    await fc.assert(
      fc.asyncProperty(item, async ({ kind, ...fields }) => {
        const sent = { decision_id: await newDecision(kind), ...fields };
        const res = await callWorker("/v1/outcomes", { json: { items: [sent] }, key: "agents-prod" });
        expect(res.status).toBe(200);
        const result = (await res.json<{ results: { status: string; issues?: { path: string }[] }[] }>()).results[0]!;
        const valid =
          kind === "clearing"
            ? !fields.recalled &&
              isCount(fields.cleared_tool_uses) &&
              isCount(fields.cleared_input_tokens) &&
              withinDecision(fields.cleared_tool_uses as number, fields.cleared_input_tokens as number)
            : fields.cleared_tool_uses === undefined && fields.cleared_input_tokens === undefined && !fields.recalled;
        if (valid) expect(result).toEqual({ status: "accepted", repeated: false });
        else {
          expect(result.status).toBe("invalid");
          expect(result.issues?.[0]?.path).toMatch(/^(items\.0\.)?(cleared_tool_uses|cleared_input_tokens|recalled)$/);
        }
      }),
      { seed: SEED, numRuns: runs(150) },
    );
  }, 60_000);
});
