import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { forgetLearned } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";
import { adminCall } from "../support/admin-helpers";
import { OPUS, SONNET_45 } from "../fixtures/rows";
import { postJson, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

// GET /v1/learning shows what the gate decides on (docs/learning.md § What is learned): for every tool,
// model and size band, the view's p is the p a decision of that tool, model and size gets, and each
// model's h and q are the decision's, over the whole chain (tool, tool × model, tool × band).
const SIZES = { lt2k: 1_000, "2k-10k": 5_000, ge10k: 20_000 } as const;
const MODELS = ["claude-opus-4-6", "claude-sonnet-4-5"] as const;

/** n decisions of a tool, model and size, fired at p 0, with `recalled` of them recalled and `turns` after each. */
async function teach(tool: string, model: string, tokens: number, n: number, recalled: number, turns: number) {
  const items = [];
  for (let i = 0; i < n; i++) {
    const res = await callWorker("/v1/gate", {
      json: { model_name: model, output_tokens: tokens, tool_name: tool, recall_probability: 0, horizon: 8 },
    });
    const body = await res.json<any>();
    expect(body.fire).toBe(true);
    items.push({
      decision_id: body.decision_id,
      turns_after: turns + (i % 3),
      recalled: i < recalled,
      cached_turns: i % 2,
    });
  }
  expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
}

beforeEach(async () => {
  await reset();
  await resetState();
  forgetLearned();
  await putRow("claude-opus-4-6", OPUS);
  await putRow("claude-sonnet-4-5", SONNET_45);
  // Every size decides (the default pre-filter would stop outputs below 10,000 tokens).
  await env.PRICING.put("config:gate", JSON.stringify({ large_offload_threshold_tokens: 0 }));
  forgetPricing();
});

describe("GET /v1/learning shows the gate's values", () => {
  it("gives every tool, model and band the p, h and q a decision of that tool, model and size decides on", async () => {
    // read_file: one model, two bands (the tool × model level holds exactly the tool's outcomes);
    // grep: two models, every band of one and one of the other (each a strict subset somewhere).
    await teach("read_file", MODELS[0], 20_000, 30, 24, 5);
    await teach("read_file", MODELS[0], 1_000, 12, 2, 3);
    await teach("grep", MODELS[0], 20_000, 16, 9, 6);
    await teach("grep", MODELS[0], 5_000, 8, 1, 2);
    await teach("grep", MODELS[1], 1_000, 10, 7, 4);
    await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {});
    const view = await (await callWorker("/v1/learning")).json<any>();
    let compared = 0;
    for (const tool of view.tools) {
      for (const model of tool.models) {
        expect(model.bands.map((b: any) => b.band)).toEqual(Object.keys(SIZES));
        for (const { band, recall_probability } of model.bands) {
          const answer = await (
            await postJson("/v1/gate", {
              model_name: model.model,
              output_tokens: SIZES[band as keyof typeof SIZES],
              tool_name: tool.tool_name,
            })
          ).json<any>();
          const where = `${tool.tool_name} × ${model.model} × ${band}`;
          expect(answer.priors.recall_probability.value, where).toBe(recall_probability.value);
          expect(answer.priors.recall_probability.n, where).toBe(recall_probability.n);
          expect(answer.priors.horizon.value, where).toBe(model.priors.horizon.value);
          expect(answer.priors.cache_hit_rate.value, where).toBe(model.priors.cache_hit_rate.value);
          compared++;
        }
      }
    }
    expect(compared).toBe(9);
    // read_file × opus holds exactly read_file's 42 outcomes: it adds nothing, (2.5 + 26) ÷ 52 at the
    // tool and model levels; its ge10k band's 30 are a strict subset and pool on top.
    const readFile = view.tools.find((t: any) => t.tool_name === "read_file");
    expect(readFile.priors.recall_probability.value).toBe(28.5 / 52);
    expect(readFile.models[0].priors.recall_probability.value).toBe(28.5 / 52);
    const ge10k = readFile.models[0].bands.find((b: any) => b.band === "ge10k").recall_probability.value;
    expect(ge10k).toBeCloseTo((10 * (28.5 / 52) + 24) / 40, 15);
  });
});
