import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { adminCall } from "../support/admin-helpers";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";
import { forgetLearned } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";

// The breaker without a holdout prices each decision as the gate decided it (docs/design/learning.md §4.2):
// a seed-mode decision by the seed's economics, a cache-aware one at the cache state its outcome
// reports, else the q it was priced with; and its evidence is a net saving, positive when the tool saves.
const TOOL = "web_fetch";
const refresh = async () => (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>();

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  forgetPricing();
  forgetLearned();
}

/** 40 sessions of one 12k output, fired, then 4 turns with nine in ten recalled, over 480k of history. */
async function play(request: Record<string, unknown>, outcome: (i: number) => Record<string, unknown>) {
  const items = [];
  for (let i = 0; i < 40; i++) {
    const res = await callWorker("/v1/gate", {
      json: { model_name: "claude-opus-4-6", output_tokens: 12_000, tool_name: TOOL, session_id: `s-${i}`, ...request },
    });
    const body = await res.json<any>();
    expect(body.fire).toBe(true);
    items.push({ decision_id: body.decision_id, turns_after: 4, recalled: i % 10 !== 0, ...outcome(i) });
  }
  expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("the realized-net breaker prices as the gate decided", () => {
  it("judges seed-mode decisions by the seed's economics, though the cache-aware bill at q 0.9 would lose", async () => {
    await putConfig({ pricing_mode: "seed", holdout_fraction: 0, learning_explore_fraction: 0 });
    // The seed refuses context_tokens on the request: the outcome carries it, and no cached_turns.
    await play({ recall_probability: 0.3 }, () => ({ context_tokens: 480_000 }));
    const report = await refresh();
    expect(report.breaker_changes).toEqual([]);
    const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
    const evidence = view.tools.find((t: any) => t.tool_name === TOOL).breaker.evidence;
    expect(evidence.priced).toEqual({ seed: 40, cache_reported: 0, cache_as_priced: 0 });
    // By the seed's arithmetic each session saves 12,000 · $5/M · 4 − carry − 0.9 of the hop: positive.
    expect(evidence.estimate).toBeGreaterThan(0);
    expect(evidence.interval[1]).toBeGreaterThan(evidence.interval[0]);
    // The ledger's own realized net (cache-aware, q 0.9, the 480k history) says the same stubs lose:
    // what the breaker once judged them by.
    const savings = await (await callWorker("/v1/savings")).json<any>();
    const realized = savings.series.reduce((total: number, bucket: any) => total + bucket.realized_net_usd, 0);
    expect(realized).toBeLessThan(0);
  });

  it("judges cache-aware decisions at the cache state their outcomes report, else the q they were priced with, and says which", async () => {
    await putConfig({ pricing_mode: "cache_aware", holdout_fraction: 0, learning_explore_fraction: 0 });
    const request = { recall_probability: 0, context_tokens: 480_000, cache_hit_rate: 0.9 };
    await play(request, (i) => (i < 10 ? { cached_turns: 4 } : {}));
    const report = await refresh();
    const evidence = report.breaker_changes[0]?.evidence ?? null;
    const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
    const shown = view.tools.find((t: any) => t.tool_name === TOOL).breaker.evidence;
    expect(shown.priced).toEqual({ seed: 0, cache_reported: 10, cache_as_priced: 30 });
    // Nine recalls in ten of a 480k history's hop at q 0.9 cost more than the cached carry saves.
    expect(shown.estimate).toBeLessThan(0);
    expect(shown.verdict).toBe("losing");
    expect(shown.interval[1]).toBeLessThan(0);
    expect(evidence).toEqual(shown);
  });

  it("judges an in_place tenant's retroactive stubs with the in_place hop, which loses where appending would win", async () => {
    // 200,000 tokens stubbed behind 40,000 cached ones, h 4, every turn cached, nine sessions in ten recalled.
    // By hand (Opus, q 1): kept, 200,000 × 4 × $0.5/M = 0.4; the suffix written again, 40,000 × $5.75/M = 0.23;
    // the stub 200 × $7.75/M; a recall 2,000 × $6.25/M + 500 × $25/M plus the 40,000 after the stub, read
    // appended ($0.5/M: +0.12345 a recalled session) or written in place ($6.25/M: −0.10655); unrecalled +0.16845.
    const request = {
      output_tokens: 200_000,
      horizon: 4,
      recall_probability: 0,
      context_tokens: 0,
      cache_hit_rate: 0.9,
      offload_at: "retroactive",
      suffix_tokens: 40_000,
    };
    const judged = async (placement: "append" | "in_place") => {
      await reset();
      await resetState();
      await putRow("claude-opus-4-6", OPUS);
      await putConfig({ pricing_mode: "cache_aware", holdout_fraction: 0, learning_explore_fraction: 0 });
      await play({ ...request, recall_placement: placement }, () => ({ cached_turns: 4 }));
      await refresh();
      const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
      return view.tools.find((t: any) => t.tool_name === TOOL).breaker.evidence;
    };
    const appended = await judged("append");
    const inPlace = await judged("in_place");
    expect(inPlace.priced).toEqual({ seed: 0, cache_reported: 40, cache_as_priced: 0 });
    // The session means: 0.9 × 0.12345 + 0.1 × 0.16845 and 0.9 × −0.10655 + 0.1 × 0.16845.
    expect(appended.estimate).toBeCloseTo(0.12795, 6);
    expect(inPlace.estimate).toBeCloseTo(-0.07905, 6);
    expect(inPlace.verdict).toBe("losing");
    expect(appended.verdict).not.toBe("losing");
  });
});
