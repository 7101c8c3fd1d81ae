import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { learningKey } from "../../src/storage/rules/keys";
import { forgetLearned, learnedCacheStats } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";
import { adminCall } from "../support/admin-helpers";
import { VECTOR_PRICING as pricing, VECTORS } from "../fixtures/vectors";
import { OPUS, SONNET_45 } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

const storable = (model: string) => pricing[model]?.output !== undefined;
const vectors = VECTORS.filter(
  (v) => v.api_valid && (pricing[v.inputs.model_name] === undefined || storable(v.inputs.model_name)),
);
// The worked examples 1–3 of docs/design/economics.md §3.6, through the API.
const CACHE_AWARE = [
  {
    model_name: "claude-opus-4-6",
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.3,
    context_tokens: 60_000,
    cache_hit_rate: 0.9,
  },
  {
    model_name: "claude-opus-4-6",
    output_tokens: 12_000,
    horizon: 2,
    recall_probability: 0.5,
    context_tokens: 150_000,
    cache_hit_rate: 0.9,
  },
  {
    model_name: "claude-sonnet-4-5",
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.3,
    context_tokens: 190_000,
    cache_hit_rate: 0.9,
  },
].flatMap((body) => [
  { ...body, pricing_mode: "cache_aware" },
  // The same with the priors left out, so the learner is the one to fill them in.
  {
    model_name: body.model_name,
    output_tokens: body.output_tokens,
    context_tokens: body.context_tokens,
    pricing_mode: "cache_aware",
    tool_name: "read_file",
  },
]);

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  forgetPricing();
  forgetLearned();
}

/** Every answer of a batch, without what differs from run to run (the id) or what is new (priors). */
async function answers(items: readonly object[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let start = 0; start < items.length; start += 100) {
    const res = await postJson("/v1/gate/batch", { items: items.slice(start, start + 100) });
    expect(res.status).toBe(200);
    const { decisions } = await res.json<{ decisions: Record<string, unknown>[] }>();
    out.push(...decisions);
  }
  return out;
}
const comparable = (list: Record<string, unknown>[]) => list.map(({ decision_id: _id, priors: _p, ...rest }) => rest);

beforeEach(async () => {
  await reset();
  await resetState();
  for (const [model, row] of Object.entries(pricing))
    if (storable(model)) await putRow(model, { input: row.input ?? 0, output: row.output ?? 0 });
  await putRow("claude-opus-4-6", OPUS);
  await putRow("claude-sonnet-4-5", SONNET_45);
});
afterEach(() => vi.restoreAllMocks());

describe("a tenant with no outcomes", () => {
  const all = () => [...vectors.map((v) => ({ ...v.inputs, tool_name: "read_file" })), ...CACHE_AWARE];

  it("gets every answer bit for bit as with learning off, over the conformance vectors and the cache-aware examples", async () => {
    await putConfig({ learning_enabled: false });
    const off = await answers(all());
    await putConfig({});
    // A refresh over an empty ledger publishes a value with nothing observed.
    expect((await (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>()).status).toBe(
      "published",
    );
    const on = await answers(all());
    expect(on).toHaveLength(vectors.length + CACHE_AWARE.length);
    expect(comparable(on)).toEqual(comparable(off));
    for (const answer of on) {
      for (const prior of Object.values(answer.priors as Record<string, { source: string; n: number }>)) {
        expect(prior.source === "request" || prior.source === "config").toBe(true);
        expect(prior.n).toBe(0);
      }
    }
  });

  it("and the conformance vectors still answer as the reference does", async () => {
    const on = await answers(vectors.map((v) => v.inputs));
    vectors.forEach((v, i) => {
      const { fire, net_saving_usd, reprefill_saving_usd, stub_carry_cost_usd, expected_recall_hop_cost_usd, reason } =
        on[i]!;
      expect({
        fire,
        net_saving_usd,
        reprefill_saving_usd,
        stub_carry_cost_usd,
        expected_recall_hop_cost_usd,
        reason,
      }).toEqual(v.expected);
    });
  });
});

const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: "read_file" };

/** Decides `n` sessions about read_file and reports each outcome: recalled in `recalled` of them, 6 turns after. */
async function teach(n: number, recalled: number) {
  const items = [];
  for (let i = 0; i < n; i++) {
    const res = await callWorker("/v1/gate", { json: { ...GATE, session_id: `s-${i}` } });
    const body = await res.json<any>();
    expect(body.fire).toBe(true);
    items.push({ decision_id: body.decision_id, turns_after: 6, recalled: i < recalled });
  }
  const res = await callWorker("/v1/outcomes", { json: { items } });
  expect(res.status).toBe(200);
}

describe("learned priors, end to end", () => {
  it("fill in the fields a request leaves out after a refresh, and never one it sends", async () => {
    await teach(20, 15);
    const refresh = await (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>();
    expect(refresh).toMatchObject({ status: "published", tools: 1, shards: { queried: 4, unavailable: 0 } });

    // Every level of this tenant (tenant, tool, tool × model, the ge10k band) holds the same 20 outcomes,
    // so each counts once (docs/design/learning.md §2.4): p (10 · 0.25 + 15) ÷ 30, h (10 · 4 + 120) ÷ 30.
    const recall = { value: 17.5 / 30 };
    const expected = { horizon: { value: 160 / 30 } };
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const learned = await (await postJson("/v1/gate", GATE)).json<any>();
    expect(write.mock.calls[0]?.[0]?.blobs?.slice(14, 17)).toEqual(["learned", "learned", "config"]);
    expect(learned.priors.recall_probability).toEqual({ value: recall.value, source: "learned", n: 20 });
    expect(learned.priors.horizon).toEqual({ value: expected.horizon.value, source: "learned", n: 20 });
    expect(learned.priors.cache_hit_rate).toEqual({ value: 0.9, source: "config", n: 0 });
    expect(learned.inputs.recall_probability).toBe(recall.value);
    // The nearest integer of the learned mean 5.33, never its floor (docs/design/learning.md §3.1).
    expect(learned.inputs.horizon).toBe(5);

    const sent = await (
      await postJson("/v1/gate", { ...GATE, recall_probability: 0.1, horizon_range: [2, 3] })
    ).json<any>();
    expect(sent.priors.recall_probability).toEqual({ value: 0.1, source: "request", n: 0 });
    expect(sent.priors.horizon).toEqual({ value: 2, source: "request", n: 0 });
    expect(sent.inputs.recall_probability).toBe(0.1);

    // Another tool has no fired decisions of its own: its p is the config's, never read_file's
    // (a tool that inherits another's p may never fire, so never learn), while h pools through the tenant.
    const other = await (await postJson("/v1/gate", { ...GATE, tool_name: "grep" })).json<any>();
    expect(other.priors.recall_probability).toEqual({ value: 0.25, source: "config", n: 0 });
    expect(other.priors.horizon).toEqual({ value: (10 * 4 + 120) / 30, source: "learned", n: 20 });
    // A decision that names no tool still pools the tenant's p.
    const untooled = await (
      await postJson("/v1/gate", { model_name: GATE.model_name, output_tokens: GATE.output_tokens })
    ).json<any>();
    expect(untooled.priors.recall_probability.value).toBeCloseTo((10 * 0.25 + 15) / 30, 15);

    const view = await (await callWorker("/v1/learning")).json<any>();
    expect(view.tools[0]).toMatchObject({
      tool_name: "read_file",
      n: { recall_probability: 20, horizon: 20, cache_hit_rate: 0 },
    });
    expect(view.tools[0].models[0].model).toBe("claude-opus-4-6");
    expect(view.config).toEqual({ horizon: 4, recall_probability: 0.25, cache_hit_rate: 0.9 });
    expect(view.tools[0].priors.recall_probability.range[0]).toBeLessThan(
      view.tools[0].priors.recall_probability.value,
    );
  });

  it("are ranged with learning_credible, and the robust rule decides on them", async () => {
    await teach(20, 15);
    await putConfig({ learning_credible: 0.9 });
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});
    const body = await (await postJson("/v1/gate", GATE)).json<any>();
    expect(body.inputs.recall_probability_range[0]).toBeLessThan(body.inputs.recall_probability);
    expect(body.inputs.recall_probability_range[1]).toBeGreaterThan(body.inputs.recall_probability);
    expect(body.worst_case).not.toBeNull();
  });

  it("are neither learned nor used with learning_enabled false", async () => {
    await teach(20, 15);
    await putConfig({ learning_enabled: false });
    expect((await (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>()).status).toBe(
      "disabled",
    );
    const body = await (await postJson("/v1/gate", GATE)).json<any>();
    expect(body.priors.recall_probability).toEqual({ value: 0.25, source: "config", n: 0 });
  });
});

/** Counts KV reads of the learned value while passing them through. */
function countLearnedReads(fault?: "throw") {
  const realGet = env.PRICING.get.bind(env.PRICING) as (key: string) => Promise<string | null>;
  const reads: string[] = [];
  vi.spyOn(env.PRICING, "get").mockImplementation((async (key: string) => {
    if (key.startsWith("learning:")) {
      reads.push(key);
      if (fault === "throw") throw new Error("KV GET failed: 503");
    }
    return realGet(key);
  }) as never);
  return reads;
}

describe("a learned value that is missing, corrupt or unreadable", () => {
  const body = { ...GATE, horizon: 4, recall_probability: 0.3 };

  it("missing: config priors, and one KV read for the isolate, not one per request", async () => {
    const reads = countLearnedReads();
    const loads = learnedCacheStats().loads;
    for (let i = 0; i < 10; i++) {
      const answer = await (await postJson("/v1/gate", GATE)).json<any>();
      expect(answer.fire).toBe(true);
      expect(answer.priors.recall_probability).toEqual({ value: 0.25, source: "config", n: 0 });
    }
    expect(reads).toEqual([learningKey("default")]);
    expect(learnedCacheStats().loads - loads).toBe(1);
  });

  it("corrupt: config priors, the same answer, read once", async () => {
    const reference = await (await postJson("/v1/gate", body)).json<any>();
    forgetLearned();
    await env.PRICING.put(learningKey("default"), '{"version":1,"tenant":"default"');
    const reads = countLearnedReads();
    for (let i = 0; i < 5; i++) {
      const answer = await (await postJson("/v1/gate", body)).json<any>();
      expect(answer.net_saving_usd).toBe(reference.net_saving_usd);
      expect(answer.fire).toBe(reference.fire);
      expect(answer.priors.horizon.source).toBe("request");
    }
    expect(reads).toHaveLength(1);
    const view = await (await callWorker("/v1/learning")).json<any>();
    expect(view.problem).toMatch(/learning:default is not valid JSON/);
  });

  it("unreadable (KV fails): config priors, never a failed decision", async () => {
    countLearnedReads("throw");
    const answer = await (await postJson("/v1/gate", GATE)).json<any>();
    expect(answer.fire).toBe(true);
    expect(answer.reason_code).toBe("net_positive");
    expect(answer.priors.recall_probability.source).toBe("config");
  });
});

describe("the learning config", () => {
  it.each([
    ["learning_enabled", "yes"],
    ["learning_prior_weight", 0],
    ["learning_window_days", 0],
    ["learning_credible", 1],
    ["learning_refresh_seconds", 10],
    ["breaker_probe_fraction", 1.5],
    ["breaker_min_sessions", 1],
  ])("refuses %s = %j with a 400 naming it", async (field, value) => {
    const res = await adminCall("PUT", "/v1/admin/config", { [field]: value });
    expect(res.status).toBe(400);
    const error = await res.json<any>();
    expect(error.error.issues.map((i: { path: string }) => i.path)).toContain(field);
  });
});
