import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ledgerSessionBase } from "../../src/proxy/observe";
import type { SessionState } from "../../src/proxy/session-state";
import { SONNET_45 } from "../fixtures/rows";
import { PROD_KEY, STAGING_KEY } from "../support/secrets";
import { freshState, mockProvider, proxyCall, proxyPost, sessionStub, sse } from "./proxy-support";

// A Claude Code-like session through the proxy: a tool result sent once,
// carried and read from the cache on the next turns, quoted by a later
// answer. The gate decides it in-process, the session's object tallies it,
// and the alarm reports outcomes and bill to the ledger as an agent would.

const MODEL = "claude-sonnet-4-5";
const SESSION = "sess-observed-1";
const UNIQUE = "export const RETRY_BUDGET_MS_7 = computeBudget(42);";
// About 60,000 characters of file, one line only it holds.
const FILE = [...Array.from({ length: 1500 }, (_, i) => `line ${i} of the file, nothing to see here`), UNIQUE].join(
  "\n",
);

const user = (text: string) => ({ role: "user", content: text });
const toolUse = {
  role: "assistant",
  content: [{ type: "tool_use", id: "toolu_9", name: "Read", input: { file_path: "src/budget.ts" } }],
};
const toolResult = {
  role: "user",
  content: [
    { type: "tool_result", tool_use_id: "toolu_9", content: FILE, cache_control: { type: "ephemeral", ttl: "1h" } },
  ],
};
const quoting = { role: "assistant", content: [{ type: "text", text: `It says:\n${UNIQUE}` }] };

function messagesRequest(messages: object[], stream: boolean, key = PROD_KEY): Request {
  const body = JSON.stringify({ model: MODEL, max_tokens: 256, stream, system: "You are terse.", messages });
  return proxyPost("/proxy/anthropic/v1/messages", body, {
    "x-api-key": "sk-ant-test",
    "x-offload-gate-key": key,
    "x-offload-session-id": SESSION,
  });
}

// Each turn's usage as the provider reports it: the first writes the cache, the later ones read it.
const USAGES = [
  { input_tokens: 30, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  {
    input_tokens: 10,
    output_tokens: 30,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 16_000,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 16_000 },
  },
  {
    input_tokens: 12,
    output_tokens: 25,
    cache_read_input_tokens: 16_040,
    cache_creation_input_tokens: 10,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 10 },
  },
];

beforeEach(() => freshState(MODEL, SONNET_45));
afterEach(() => vi.restoreAllMocks());

function stub(tenant = "agents-prod") {
  return sessionStub(tenant, SESSION, MODEL);
}

describe("what the proxy observes of a session", () => {
  it("decides a tool result once, counts the turns that carried it and read it from the cache, sees the quote, and sums the bill", async () => {
    let turn = 0;
    mockProvider(() => {
      const usage = USAGES[turn++]!;
      const message = { id: `msg_${turn}`, type: "message", role: "assistant", model: MODEL, content: [], usage };
      // The second turn streams, the others answer whole.
      if (turn !== 2) return Response.json(message);
      return new Response(
        sse([
          {
            event: "message_start",
            data: { type: "message_start", message: { ...message, usage: { ...usage, output_tokens: 1 } } },
          },
          {
            event: "message_delta",
            data: { type: "message_delta", delta: {}, usage: { output_tokens: usage.output_tokens } },
          },
          { event: "message_stop", data: { type: "message_stop" } },
        ]),
        { headers: { "content-type": "text/event-stream" } },
      );
    });
    const errors = vi.spyOn(console, "error");
    await proxyCall(messagesRequest([user("what is the retry budget?")], false));
    await proxyCall(messagesRequest([user("what is the retry budget?"), toolUse, toolResult], true));
    await proxyCall(
      messagesRequest([user("what is the retry budget?"), toolUse, toolResult, quoting, user("thanks")], false),
    );
    expect(errors.mock.calls.filter(([line]) => String(line).includes("proxy:"))).toEqual([]);

    const state = (await stub().peek()) as SessionState;
    expect(state.tenant).toBe("agents-prod");
    expect(state.ledger_session).toBe(ledgerSessionBase(SESSION, MODEL));
    const tallies = Object.values(state.decisions);
    expect(tallies).toHaveLength(1);
    expect(tallies[0]).toMatchObject({ turns_after: 1, cached_turns: 1, recalled: true, recalled_high: true });
    expect(tallies[0]!.decision_id).toMatch(/^dec_/);
    expect(state.usages).toEqual([
      { input: 30, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 20 },
      { input: 10, cache_read: 0, cache_write_5m: 0, cache_write_1h: 16_000, output: 30 },
      { input: 12, cache_read: 16_040, cache_write_5m: 0, cache_write_1h: 10, output: 25 },
    ]);
    // Nothing of the content is kept.
    expect(JSON.stringify(state)).not.toContain("RETRY_BUDGET");
  });

  it("reports the idle session to the ledger: the decision's outcome and the exact bill, in the savings report", async () => {
    let turn = 0;
    mockProvider(() =>
      Response.json({
        id: `msg_${turn}`,
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [],
        usage: USAGES[turn++],
      }),
    );
    await proxyCall(messagesRequest([user("what is the retry budget?")], false, STAGING_KEY));
    await proxyCall(messagesRequest([user("what is the retry budget?"), toolUse, toolResult], false, STAGING_KEY));
    await proxyCall(
      messagesRequest(
        [user("what is the retry budget?"), toolUse, toolResult, quoting, user("thanks")],
        false,
        STAGING_KEY,
      ),
    );
    expect(await runDurableObjectAlarm(stub("agents-staging"))).toBe(true);
    expect(await stub("agents-staging").peek()).toBeNull();

    const res = await proxyCall(
      new Request("http://gate.test/v1/savings", { headers: { authorization: `Bearer ${STAGING_KEY}` } }),
    );
    expect(res.status).toBe(200);
    const report = (await res.json()) as {
      decisions: number;
      outcomes: number;
      recall: { realized: number };
      recall_range: { n: number; low: number | null; high: number | null };
      holdout: {
        sessions: number;
        mean_cost_usd: number;
        tools: { tool_name: string; observed: boolean; sessions: number; recall_range: object | null }[];
      };
    };
    expect(report.decisions).toBe(1);
    expect(report.outcomes).toBe(1);
    expect(report.recall.realized).toBe(1);
    // Quoted with no re-read first: a charged recall, so both ends of the range.
    expect(report.recall_range).toEqual({ n: 1, low: 1, high: 1 });
    // The bill as paid, each request at sonnet-4-5's prices ($/M: input 3, output 15, read 0.3, write 3.75;
    // the row has no 1-hour price, so 1-hour writes fall back to the 5-minute one):
    // 30·3 + 20·15 = 390; 10·3 + 30·15 + 16,000·3.75 = 60,480; 12·3 + 25·15 + 16,040·0.3 + 10·3.75 = 5,260.5.
    expect(report.holdout.sessions).toBe(1);
    expect(report.holdout.mean_cost_usd).toBeCloseTo((390 + 60_480 + 5_260.5) / 1e6, 12);
    // Marked observed by the report's own field: what the gate would have done, nothing stubbed.
    expect(report.holdout.tools.map((t) => [t.tool_name, t.observed, t.sessions, t.recall_range])).toEqual([
      ["observed:Read", true, 1, { n: 1, low: 1, high: 1 }],
    ]);

    // A session that comes back after going idle is a new ledger session: its bill never conflicts with the first.
    expect(await stub("agents-staging").open(ledgerSessionBase(SESSION, MODEL))).toEqual({
      ledger_session: `${ledgerSessionBase(SESSION, MODEL)}.2`,
    });
  });

  it("reports a re-read as the recall range's high end only: the agent fetched the file again, so nothing is charged", async () => {
    // The tenant's ledger holds earlier tests' sessions: the report is read from this test's start.
    const since = new Date().toISOString();
    let turn = 0;
    mockProvider(() =>
      Response.json({
        id: `msg_${turn}`,
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [],
        usage: USAGES[Math.min(turn++, 2)],
      }),
    );
    // The agent reads the same file again instead of quoting it (replay's same_file rule).
    const reRead = {
      role: "assistant",
      content: [{ type: "tool_use", id: "toolu_10", name: "Read", input: { file_path: "src/budget.ts" } }],
    };
    const reReadResult = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_10", content: "ok" }] };
    const opening = [user("what is the retry budget?"), toolUse, toolResult];
    await proxyCall(messagesRequest([user("what is the retry budget?")], false, STAGING_KEY));
    await proxyCall(messagesRequest(opening, false, STAGING_KEY));
    await proxyCall(messagesRequest([...opening, reRead, reReadResult], false, STAGING_KEY));
    const state = (await stub("agents-staging").peek()) as SessionState;
    const tally = Object.values(state.decisions).find((t) => t.turns_after === 1);
    expect(tally).toMatchObject({ recalled: false, recalled_high: true });

    expect(await runDurableObjectAlarm(stub("agents-staging"))).toBe(true);
    const res = await proxyCall(
      new Request(`http://gate.test/v1/savings?from=${since}`, { headers: { authorization: `Bearer ${STAGING_KEY}` } }),
    );
    const report = (await res.json()) as { recall: { realized: number }; recall_range: object };
    // The learner's recall is the charged one; the report shows the range beside it.
    expect(report.recall.realized).toBe(0);
    expect(report.recall_range).toEqual({ n: 1, low: 0, high: 1 });
  });

  it("reports a quoted output the gate kept as not recalled, so the ledger takes its outcome", async () => {
    const since = new Date().toISOString();
    let turn = 0;
    mockProvider(() =>
      Response.json({
        id: `msg_${turn}`,
        type: "message",
        role: "assistant",
        model: MODEL,
        content: [],
        usage: USAGES[Math.min(turn++, 2)],
      }),
    );
    // One line of output: far too small to pay for a stub, so the gate does not fire.
    const small = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_9", content: UNIQUE }],
    };
    const opening = [user("what is the retry budget?"), toolUse, small];
    await proxyCall(messagesRequest(opening, false, STAGING_KEY));
    await proxyCall(messagesRequest([...opening, quoting, user("thanks")], false, STAGING_KEY));
    const state = (await stub("agents-staging").peek()) as SessionState;
    expect(Object.values(state.decisions)).toMatchObject([{ fired: false, turns_after: 1, recalled: true }]);

    expect(await runDurableObjectAlarm(stub("agents-staging"))).toBe(true);
    const res = await proxyCall(
      new Request(`http://gate.test/v1/savings?from=${since}`, { headers: { authorization: `Bearer ${STAGING_KEY}` } }),
    );
    const report = (await res.json()) as { outcomes: number; fired: number; recall_range: object };
    // The outcome is stored (a recall claimed for a decision that did not fire would be refused whole).
    expect([report.fired, report.outcomes]).toEqual([0, 1]);
    expect(report.recall_range).toEqual({ n: 0, low: null, high: null });
  });

  it("fails open: a gate that cannot be asked leaves the answer as the provider sent it, and logs the fault once", async () => {
    mockProvider(() =>
      Response.json({ id: "msg_1", type: "message", role: "assistant", model: MODEL, content: [], usage: USAGES[0] }),
    );
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { proxyFetch } = await import("../../src/proxy");
    const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
    for (let i = 0; i < 2; i++) {
      const ctx = createExecutionContext();
      const res = await proxyFetch(
        messagesRequest([user("q"), toolUse, toolResult], false),
        { ...env, GATE_API_KEYS: `agents-prod:${PROD_KEY}`, ANTHROPIC_UPSTREAM: "http://127.0.0.1:9/anthropic" },
        ctx,
        async () => {
          throw new Error("the gate is down");
        },
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: "msg_1" });
      await waitOnExecutionContext(ctx);
    }
    expect(errors.mock.calls.filter(([line]) => String(line).includes("the gate's decision failed"))).toHaveLength(1);
  });
});
