import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { MAX_HISTORY_BYTES, parseHistory, withEntry } from "../../src/storage/schemas/history";
import {
  historyKey,
  ledgerShardKey,
  learningAcksKey,
  learningKey,
  replayPriorsKey,
} from "../../src/storage/rules/keys";
import { forgetLearned } from "../../src/storage/learning";
import { MAX_REPLAY_OBSERVATIONS } from "../../src/storage/write/replay-priors";
import { ALICE_TOKEN, TEST_GATE_API_KEYS } from "../support/secrets";
import { adminCall, callWithEnv } from "../support/admin-helpers";
import { OPUS } from "../fixtures/rows";
import { putRow, resetState } from "../support/helpers";

// The replay import's counts (docs/learning.md § The replay level): whole numbers with a cap, never
// 1e308 pseudo-observations no outcome can outweigh; the priors' history bounded by bytes; and no
// learning value written for a tenant that no gate key names and that has no data.

const none = { p_n: 0, p_r: 0, h_n: 0, h_sum: 0, h_sumsq: 0, q_n: 0, q_cached: 0, q_turns: 0 };
const READ_FILE = { ...none, p_n: 40, p_r: 8, h_n: 40, h_sum: 320, h_sumsq: 2_800 };
const priors = (sums: Record<string, number>) => ({
  version: 1,
  source: "replay",
  tools: { read_file: { sums: { ...none, ...sums } } },
});
const importPriors = (body: unknown, tenant = "default") =>
  adminCall("POST", `/v1/admin/learning/import?tenant=${tenant}`, body);
const issuePaths = async (res: Response) =>
  (await res.json<any>()).error.issues.map((issue: { path: string }) => issue.path);

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  forgetLearned();
});

describe("a replay import's counts", () => {
  it.each([
    ["p_n", "1e308 observations", { p_n: 1e308, p_r: 1, h_n: 1e308, h_sum: 1e308, h_sumsq: 1e308 }],
    ["p_n", "a fractional count", { p_n: 1e-300, h_n: 1, h_sum: 1, h_sumsq: 1 }],
    ["h_n", "1e300 horizons summing to 1e306", { h_n: 1e300, h_sum: 1e306, h_sumsq: 1e306 }],
    ["h_n", "one past the cap", { h_n: MAX_REPLAY_OBSERVATIONS + 1, h_sum: 1e8, h_sumsq: 1e8 }],
    ["h_sum", "a fractional turn sum", { h_n: 4, h_sum: 8.5, h_sumsq: 20 }],
    ["h_sumsq", "a sum of squares past 2^53", { h_n: 1e7, h_sum: 1e13, h_sumsq: 1e19 }],
  ])("refuse %s as %s with a 400 naming it, and leave the stored import as it was", async (field, _what, sums) => {
    expect((await importPriors(priors(READ_FILE))).status).toBe(200);
    const stored = await env.PRICING.get(replayPriorsKey("default"));
    const res = await importPriors(priors(sums));
    expect(res.status).toBe(400);
    expect(await issuePaths(res)).toContain(`tools.read_file.sums.${field}`);
    expect(await env.PRICING.get(replayPriorsKey("default"))).toBe(stored);
    const history = await (await adminCall("GET", "/v1/admin/learning/import/default/history")).json<any>();
    expect(history.current_version).toBe(1);
  });

  it("refuses a count past the cap in a size band too", async () => {
    const body = {
      version: 1,
      source: "replay",
      tools: {
        read_file: { sums: READ_FILE, bands: { lt2k: { ...none, p_n: 2e7, h_n: 2e7, h_sum: 2e7, h_sumsq: 2e7 } } },
      },
    };
    const res = await importPriors(body);
    expect(res.status).toBe(400);
    expect(await issuePaths(res)).toContain("tools.read_file.bands.lt2k.p_n");
  });

  it("takes counts at the cap, and the learning view's ranges then hold their values", async () => {
    const capped = { p_n: 1e7, p_r: 3e6, h_n: 1e7, h_sum: 5e7, h_sumsq: 3e8, q_n: 1e7, q_cached: 4e7, q_turns: 5e7 };
    expect((await importPriors(priors(capped))).status).toBe(200);
    const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
    const ranges: [number, [number, number]][] = [];
    const visit = (node: any) => {
      if (node === null || typeof node !== "object") return;
      if (Array.isArray(node.range) && typeof node.value === "number") ranges.push([node.value, node.range]);
      for (const child of Object.values(node)) visit(child);
    };
    visit(view);
    expect(ranges.length).toBeGreaterThan(0);
    for (const [value, [lo, hi]] of ranges) expect(lo <= value && value <= hi).toBe(true);
  });
});

describe("a key's audit history", () => {
  it("is bounded by bytes: a large value keeps a few versions, the newest always", () => {
    const big = { tools: "x".repeat(200_000) };
    let doc = parseHistory(null)!;
    for (let k = 0; k < 20; k++)
      doc = withEntry(
        doc,
        { action: "put", by: "ops", before: { ...big, k: k - 1 }, after: { ...big, k } },
        new Date(),
      ).doc;
    expect(new TextEncoder().encode(JSON.stringify(doc)).length).toBeLessThanOrEqual(MAX_HISTORY_BYTES + 200);
    expect(doc.entries.length).toBeGreaterThanOrEqual(2);
    expect(doc.entries.at(-1)!.version).toBe(20);
    expect(doc.next_version).toBe(21);
    // A value larger than the bound alone still keeps its own entry.
    const huge = withEntry(
      doc,
      { action: "put", by: "ops", before: null, after: "y".repeat(2 * MAX_HISTORY_BYTES) },
      new Date(),
    );
    expect(huge.doc.entries.map((entry) => entry.version)).toEqual([21]);
  });

  it("still keeps 100 small entries", () => {
    let doc = parseHistory(null)!;
    for (let k = 0; k < 120; k++)
      doc = withEntry(doc, { action: "put", by: "ops", before: k, after: k + 1 }, new Date()).doc;
    expect(doc.entries.length).toBe(100);
  });

  it("of imported priors stays under the bound however many large imports come", async () => {
    const tools: Record<string, unknown> = {};
    for (let t = 0; t < 700; t++) tools[`tool_${t}`] = { sums: READ_FILE };
    for (let k = 0; k < 15; k++) {
      (tools.tool_0 as { sums: Record<string, number> }).sums = { ...READ_FILE, p_r: k };
      expect((await importPriors({ version: 1, source: "replay", tools })).status).toBe(200);
    }
    const text = (await env.PRICING.get(historyKey(replayPriorsKey("default"))))!;
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(MAX_HISTORY_BYTES + 200);
    expect(JSON.parse(text).entries.at(-1).version).toBe(15);
  });
});

describe("admin learning writes for a tenant", () => {
  const keyed = { GATE_API_KEYS: TEST_GATE_API_KEYS };
  const call = (method: string, path: string, body: unknown) =>
    callWithEnv(keyed, path, {
      method,
      headers: { authorization: `Bearer ${ALICE_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("refuse one no gate key names and with no data, naming tenant, and write nothing", async () => {
    for (const [method, path, body] of [
      ["POST", "/v1/admin/learning/import?tenant=agents-prdo", priors(READ_FILE)],
      ["PUT", "/v1/admin/learning/acks/agents-prdo", { tool_name: "read_file", acknowledged: false }],
    ] as const) {
      const res = await call(method, path, body);
      expect(res.status).toBe(404);
      expect(await issuePaths(res)).toEqual(["tenant"]);
    }
    for (const key of [replayPriorsKey("agents-prdo"), learningAcksKey("agents-prdo"), learningKey("agents-prdo")])
      expect(await env.PRICING.get(key)).toBeNull();
  });

  it("take one a gate key names, or one with ledger data whose key was retired", async () => {
    expect((await call("POST", "/v1/admin/learning/import?tenant=agents-prod", priors(READ_FILE))).status).toBe(200);
    await env.PRICING.put(ledgerShardKey("retired", 2), "1");
    expect((await call("POST", "/v1/admin/learning/import?tenant=retired", priors(READ_FILE))).status).toBe(200);
    expect(
      (await call("PUT", "/v1/admin/learning/acks/retired", { tool_name: "read_file", acknowledged: false })).status,
    ).toBe(200);
  });

  it("take the open gate's tenant while GATE_API_KEYS is unset, and no other", async () => {
    expect((await importPriors(priors(READ_FILE))).status).toBe(200);
    expect((await importPriors(priors(READ_FILE), "agents-prod")).status).toBe(404);
  });
});
