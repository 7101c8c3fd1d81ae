import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { ledgerShard } from "../src/ledger/client";
import { shardOfDecisionId } from "../src/ledger/ids";
import { OPUS, putRow, resetState } from "./helpers";
import { callWorker, type Tenant } from "./ledger-fixtures";

const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };

async function decide(body: Record<string, unknown>, key: Tenant = "agents-prod") {
  const res = await callWorker("/v1/gate", { json: body, key });
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

const post = async (path: string, items: unknown[], key: Tenant = "agents-prod") => {
  const res = await callWorker(path, { json: { items }, key });
  return { status: res.status, body: await res.json<Record<string, any>>() };
};

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  const { forgetPricing } = await import("../src/store/read");
  forgetPricing();
}

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("decision ids", () => {
  it("come with every answer, naming a shard below the configured count", async () => {
    await putConfig({ ledger_shards: 8 });
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await decide({ ...GATE })).decision_id);
    expect(ids.size).toBe(20);
    for (const id of ids) expect(shardOfDecisionId(id)).toBeLessThan(8);
  });

  it("route a session's decisions to one shard, where the ledger keeps them", async () => {
    await putConfig({ ledger_shards: 8 });
    const a = await decide({ ...GATE, session_id: "conv-1", tool_name: "web.fetch" });
    const b = await decide({ ...GATE, session_id: "conv-1", tool_name: "grep" });
    const shard = shardOfDecisionId(a.decision_id) ?? -1;
    expect(shardOfDecisionId(b.decision_id)).toBe(shard);
    const sums = await ledgerShard(env.LEDGER, "agents-prod", shard).sums("agents-prod", { from: 0, to: Date.now() + 1_000 }, 86_400_000);
    expect(sums.decisions).toBeGreaterThanOrEqual(2);
  });

  it("refuse a session_id or tool_name outside their patterns, naming the field", async () => {
    const res = await callWorker("/v1/gate", { json: { ...GATE, session_id: "has space", tool_name: "x".repeat(65) }, key: "agents-prod" });
    expect(res.status).toBe(400);
    const paths = (await res.json<{ error: { issues: { path: string }[] } }>()).error.issues.map((i) => i.path);
    expect(paths.sort()).toEqual(["session_id", "tool_name"]);
  });
});
