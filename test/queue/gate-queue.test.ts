import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ledgerShard } from "../../src/ledger";
import { WORKED_EXAMPLE_CLEARING } from "../../src/routes/plan/context-schema";
import { WORKED_EXAMPLE_P1 } from "../../src/routes/plan/schema";
import worker from "../../src/index";
import { forgetPricing } from "../../src/storage/read";
import { OPUS, putGateConfig, putRow, resetState } from "../support/helpers";
import { linesLogged } from "../support/ledger-fixtures";

const TENANT = "default";
const SHARDS = 4;
const window = { from: 0, to: 4_000_000_000_000 };
const hanging = env.LEDGER_HANGING;
const holder = () => hanging.get(hanging.idFromName("probe"));
let runs = 0;

/** Calls the worker with `over` in its env; answers the response and the context whose waitUntil work is the hand-over. */
async function callWith(path: string, body: unknown, over: Partial<Record<keyof Env, unknown>> = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://gate.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    { ...env, ...over } as Env,
    ctx,
  );
  return { res, ctx, text: await res.text() };
}

/** How many decisions about `tool` every shard of the tenant holds. */
async function stored(tool: string): Promise<number> {
  let total = 0;
  for (let shard = 0; shard < SHARDS; shard++)
    total += (await ledgerShard(env.LEDGER, TENANT, shard).sums(TENANT, { ...window, tool_name: tool }, 86_400_000))
      .decisions;
  return total;
}

/** Waits, bounded, until the shards hold `count` decisions about `tool` (the consumer's batch timeout is 2 s). */
async function arrived(tool: string, count: number): Promise<number> {
  const deadline = Date.now() + 20_000;
  let held = await stored(tool);
  while (held < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    held = await stored(tool);
  }
  return held;
}

const uniqueTool = (name: string) => `${name}.${Date.now()}.${runs++}`;
const withoutIds = (text: string) => text.replace(/"decision_id":"dec_\d+_[0-9a-f]{32}"/g, '"decision_id":"-"');
const { LEDGER_QUEUE: _queue, ...directEnv } = env;
const noQueue = { LEDGER_QUEUE: undefined };

beforeAll(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  await holder().waiting();
}, 30_000);

afterEach(async () => {
  await holder().release();
  vi.restoreAllMocks();
});

describe("queued ledger writes: gate → LEDGER_QUEUE → consumer → shard", () => {
  it("sends single, batch and plan decisions to the queue, writing nothing directly, and the consumer stores each once", async () => {
    const log = vi.spyOn(console, "error");
    const tool = uniqueTool("queued");
    const item = { model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: `s-${tool}`, tool_name: tool };
    // A direct write would reach the throwing shards and log its failure: none may.
    const broken = { LEDGER: env.LEDGER_THROWING };
    const calls = [
      await callWith("/v1/gate", item, broken),
      await callWith(
        "/v1/gate/batch",
        { items: [item, { ...item, output_tokens: 500 }, { ...item, session_id: `t-${tool}` }] },
        broken,
      ),
      await callWith("/v1/plan", { ...WORKED_EXAMPLE_P1, tool_name: tool, session_id: `s-${tool}` }, broken),
    ];
    for (const call of calls) {
      expect(call.res.status).toBe(200);
      await waitOnExecutionContext(call.ctx);
    }
    expect(await arrived(tool, 5)).toBe(5);
    expect(linesLogged(log, "ledger write")).toEqual([]);
    expect(linesLogged(log, "ledger queue send")).toEqual([]);
  });

  it("carries each decision's recall_placement through the queue: in_place kept, append and unnamed stored as NULL", async () => {
    const tool = uniqueTool("placement");
    await putGateConfig({ pricing_mode: "cache_aware" });
    forgetPricing();
    try {
      const gate = {
        model_name: "claude-opus-4-6",
        output_tokens: 20_000,
        context_tokens: 60_000,
        offload_at: "retroactive",
        suffix_tokens: 30_000,
        tool_name: tool,
      };
      const broken = { LEDGER: env.LEDGER_THROWING };
      const calls = [
        await callWith("/v1/gate", { ...gate, recall_placement: "in_place", session_id: `g-${tool}` }, broken),
        await callWith("/v1/gate", { ...gate, recall_placement: "append", session_id: `a-${tool}` }, broken),
        await callWith("/v1/gate", { ...gate, session_id: `u-${tool}` }, broken),
        await callWith(
          "/v1/plan",
          { ...WORKED_EXAMPLE_P1, recall_placement: "in_place", tool_name: tool, session_id: `p-${tool}` },
          broken,
        ),
        await callWith(
          "/v1/context-management",
          { ...WORKED_EXAMPLE_CLEARING, recall_placement: "in_place", tool_name: tool, session_id: `c-${tool}` },
          broken,
        ),
      ];
      const sessions: Record<string, string | null> = {};
      for (const call of calls) {
        expect(call.res.status).toBe(200);
        await waitOnExecutionContext(call.ctx);
      }
      expect(await arrived(tool, calls.length)).toBe(calls.length);
      for (let shard = 0; shard < SHARDS; shard++)
        await runInDurableObject(ledgerShard(env.LEDGER, TENANT, shard), (_instance, state) => {
          // A shard no decision reached has no tables.
          if (state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'decisions'").toArray().length === 0)
            return;
          for (const row of state.storage.sql.exec<{ session_id: string; recall_placement: string | null }>(
            "SELECT session_id, recall_placement FROM decisions WHERE tool_name = ?",
            tool,
          ))
            sessions[row.session_id.split("-")[0]!] = row.recall_placement;
        });
      expect(sessions).toEqual({ g: "in_place", a: null, u: null, p: "in_place", c: "in_place" });
    } finally {
      await env.PRICING.delete("config:gate");
      forgetPricing();
    }
  });

  it("writes straight to the shards without the binding, as before the queue", async () => {
    const tool = uniqueTool("direct");
    const { res, ctx } = await callWith(
      "/v1/gate",
      { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: tool },
      noQueue,
    );
    expect(res.status).toBe(200);
    await waitOnExecutionContext(ctx);
    // Stored by the time the request's waitUntil work is done: no consumer involved.
    expect(await stored(tool)).toBe(1);
    expect(Object.keys(directEnv)).not.toContain("LEDGER_QUEUE");
  });
});

describe("a failing or slow queue never changes the gate's answer, nor makes it wait", () => {
  const body = (tool: string) => ({
    items: [
      { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: tool },
      { model_name: "claude-opus-4-6", output_tokens: 500, tool_name: tool },
    ],
  });

  it("answers byte for byte as without a queue (but for the ids), with a working, a throwing and a hanging queue", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const direct = await callWith("/v1/gate/batch", body("same"), noQueue);
    const queued = await callWith("/v1/gate/batch", body("same"));
    const throwing = await callWith("/v1/gate/batch", body("same"), { LEDGER_QUEUE: env.LEDGER_QUEUE_THROWING });
    const slow = await callWith("/v1/gate/batch", body("same"), { LEDGER_QUEUE: env.LEDGER_QUEUE_HANGING });
    // The answer is in hand while the queue still holds the send.
    expect(await holder().waiting()).toBe(1);
    for (const call of [queued, throwing, slow]) {
      expect(call.res.status).toBe(200);
      expect(withoutIds(call.text)).toBe(withoutIds(direct.text));
    }
    await holder().release();
    await Promise.all([direct, queued, throwing, slow].map((call) => waitOnExecutionContext(call.ctx)));
  });

  it("writes the records of a send that fails straight to their shards, and logs it once", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const tool = uniqueTool("fallback");
    const call = await callWith("/v1/gate/batch", body(tool), { LEDGER_QUEUE: env.LEDGER_QUEUE_THROWING });
    await waitOnExecutionContext(call.ctx);
    expect(linesLogged(log, "ledger queue send")).toHaveLength(1);
    expect(await stored(tool)).toBe(2);
    expect(log).toHaveBeenCalledWith(
      expect.stringContaining("ledger queue send failed (2 decisions)"),
      "ledger queue is down (test)",
    );
  });

  it("falls back to the direct write when a send hangs past ledger_timeout_ms, and logs the timeout once", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const tool = uniqueTool("timeout");
    await putGateConfig({ ledger_timeout_ms: 50 });
    forgetPricing();
    const call = await callWith("/v1/gate/batch", body(tool), { LEDGER_QUEUE: env.LEDGER_QUEUE_HANGING });
    await waitOnExecutionContext(call.ctx);
    await env.PRICING.delete("config:gate");
    forgetPricing();
    expect(linesLogged(log, "ledger queue send")).toEqual([
      "offload-gate: ledger queue send timed out after 50 ms (2 decisions); writing them directly",
    ]);
    expect(await stored(tool)).toBe(2);
  });
});
