import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ledgerShard, shardOfDecisionId } from "../../src/ledger";
import worker from "../../src/index";
import { WORKED_EXAMPLE_CLEARING } from "../../src/routes/plan/context-schema";
import { OPUS, putRow, resetState } from "../support/helpers";
import { DECISION_KEY } from "../support/secrets";

// Early outcomes (docs/design/ledger.md §1), on a real local queue: an outcome sent together with its decision is applied, never refused.

const TENANT = "default";
const KEYED = { DECISION_ID_KEY: DECISION_KEY };
const window = { from: 0, to: 4_000_000_000_000 };

/** Calls the worker with the signing key; answers the parsed body and the context that holds the hand-over. */
async function call(path: string, body: unknown) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://gate.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { ...env, ...KEYED } as Env,
    ctx,
  );
  return { status: res.status, body: await res.json<Record<string, any>>(), ctx };
}

/** Per shard, how many of these ids it holds. */
function perShard(ids: readonly string[]): Map<number, number> {
  const byShard = new Map<number, number>();
  for (const id of ids) byShard.set(shardOfDecisionId(id)!, (byShard.get(shardOfDecisionId(id)!) ?? 0) + 1);
  return byShard;
}

/** The decisions and outcomes about `tool` its shard holds, once the consumer has written them (bounded wait). */
async function landed(tool: string, shard: number, outcomes: number) {
  const read = () => ledgerShard(env.LEDGER, TENANT, shard).sums(TENANT, { ...window, tool_name: tool }, 86_400_000);
  const deadline = Date.now() + 20_000;
  let sums = await read();
  while (sums.outcomes < outcomes && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    sums = await read();
  }
  return { decisions: sums.decisions, outcomes: sums.outcomes };
}

beforeAll(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
}, 30_000);

describe("an outcome racing its queued decision", () => {
  it("is accepted (pending while the decision is in the queue) and applied once the consumer stores the decision", async () => {
    const tool = `race.${Date.now()}`;
    const gates = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call("/v1/gate", {
          model_name: "claude-opus-4-6",
          output_tokens: 20_000,
          session_id: `race-${i}`,
          tool_name: tool,
        }),
      ),
    );
    const ids = gates.map((g) => g.body.decision_id as string);
    // Each outcome goes out at once, together with the others: the decisions are still in the queue.
    const reports = await Promise.all(
      ids.map((decision_id) => call("/v1/outcomes", { items: [{ decision_id, turns_after: 4, recalled: false }] })),
    );
    await Promise.all([...gates, ...reports].map((r) => waitOnExecutionContext(r.ctx)));
    for (const report of reports) {
      expect(report.status).toBe(200);
      expect(report.body.results[0].status).toBe("accepted");
    }
    // At least one outcome overtook its decision (the consumer's batch waits up to 2 s).
    expect(reports.some((r) => r.body.results[0].pending === true)).toBe(true);
    for (const [shard, n] of perShard(ids)) expect(await landed(tool, shard, n)).toEqual({ decisions: n, outcomes: n });
  }, 40_000);

  it("is accepted for a clearing decision too: applied_edits reported as soon as the next response arrives", async () => {
    const tool = `clear.${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call("/v1/context-management", { ...WORKED_EXAMPLE_CLEARING, session_id: `clear-race-${i}`, tool_name: tool }),
      ),
    );
    for (const answer of answers) expect(answer.status).toBe(200);
    const ids = answers.map((a) => a.body.decision_id as string);
    const reports = await Promise.all(
      ids.map((decision_id) =>
        call("/v1/outcomes", {
          items: [{ decision_id, turns_after: 4, recalled: false, cleared_tool_uses: 3, cleared_input_tokens: 86_970 }],
        }),
      ),
    );
    await Promise.all([...answers, ...reports].map((r) => waitOnExecutionContext(r.ctx)));
    for (const report of reports) {
      expect(report.status).toBe(200);
      expect(report.body.results[0].status).toBe("accepted");
    }
    expect(reports.some((r) => r.body.results[0].pending === true)).toBe(true);
    for (const [shard, n] of perShard(ids)) expect(await landed(tool, shard, n)).toEqual({ decisions: n, outcomes: n });
  }, 40_000);
});
