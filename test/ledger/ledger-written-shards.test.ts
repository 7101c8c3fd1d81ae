import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetWrittenShards, shardOfDecisionId } from "../../src/ledger";
import { LEDGER_SHARD_PREFIX, ledgerShardKey } from "../../src/storage/rules/keys";
import { adminCall } from "../support/admin-helpers";
import { OPUS, putRow, resetState } from "../support/helpers";
import { callWorker } from "../support/ledger-fixtures";

/** Counts the ledger objects the worker names, passing every call through to the real binding. */
function countObjects(): string[] {
  const named: string[] = [];
  const real = env.LEDGER.idFromName.bind(env.LEDGER);
  vi.spyOn(env.LEDGER, "idFromName").mockImplementation((name: string) => {
    named.push(name);
    return real(name);
  });
  return named;
}

// A binding that fails every call: a read that asked any shard would say so.
const FAULTY = {
  idFromName: () => {
    throw new Error("the ledger must not be asked");
  },
  get: () => {
    throw new Error("the ledger must not be asked");
  },
} as unknown as Env["LEDGER"];

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => vi.restoreAllMocks());

describe("reads of a tenant that never wrote", () => {
  it("answer an empty savings report at once and instantiate no object, for the caller's tenant or any made-up one", async () => {
    const named = countObjects();
    for (const path of ["/v1/savings", "/v1/admin/savings?tenant=made-up-tenant"]) {
      const res = path.startsWith("/v1/admin") ? await adminCall("GET", path) : await callWorker(path);
      expect(res.status).toBe(200);
      const report = await res.json<any>();
      expect(report.decisions).toBe(0);
      expect(report.shards).toEqual({ queried: 0, unavailable: 0, partial: false });
    }
    expect(named).toEqual([]);
    // The same with a binding that fails: nothing asked it.
    expect((await callWorker("/v1/savings", {}, { LEDGER: FAULTY })).status).toBe(200);
  });

  it("publish an empty learned value on refresh without asking a shard", async () => {
    const named = countObjects();
    const refresh = await (await adminCall("POST", "/v1/admin/learning/refresh?tenant=made-up-tenant", {})).json<any>();
    expect(refresh).toMatchObject({ status: "published", tools: 0, shards: { queried: 0, unavailable: 0 } });
    expect(named).toEqual([]);
  });
});

describe("a new tenant's first session report", () => {
  it("creates only the object of the shard it writes, asking none to locate the session", async () => {
    const named = countObjects();
    const usage = { input_tokens: 1_000, output_tokens: 100 };
    const res = await callWorker("/v1/sessions", {
      json: { items: [{ session_id: "first-bill", model_name: "claude-opus-4-6", turns: 3, usage }] },
    });
    expect((await res.json<any>()).accepted).toBe(1);
    expect(new Set(named).size).toBe(1);
    const marks = await env.PRICING.list({ prefix: LEDGER_SHARD_PREFIX });
    expect(marks.keys.map((key) => key.name)).toEqual([ledgerShardKey("default", Number(named[0]!.split("/")[1]))]);
  });

  it("still finds the shard of a session's decisions once the tenant wrote, and bills it there", async () => {
    const gate = await (
      await callWorker("/v1/gate", {
        json: { model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: "homed" },
      })
    ).json<any>();
    const shard = shardOfDecisionId(gate.decision_id)!;
    forgetWrittenShards();
    const named = countObjects();
    const usage = { input_tokens: 1_000, output_tokens: 100 };
    await callWorker("/v1/sessions", {
      json: { items: [{ session_id: "homed", model_name: "claude-opus-4-6", turns: 3, usage }] },
    });
    // Only the written shard is asked to locate it, and the bill goes where its decision is.
    expect(new Set(named)).toEqual(new Set([`default/${shard}`]));
  });
});

describe("reads of a tenant that wrote", () => {
  it("ask exactly the shards its decisions and bills went to, each marked once in KV", async () => {
    const shards = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const answer = await (
        await callWorker("/v1/gate", {
          json: { model_name: "claude-opus-4-6", output_tokens: 20_000, session_id: `w-${i}` },
        })
      ).json<any>();
      shards.add(shardOfDecisionId(answer.decision_id)!);
    }
    const marks = await env.PRICING.list({ prefix: LEDGER_SHARD_PREFIX });
    expect(marks.keys.map((key) => key.name).sort()).toEqual(
      [...shards].map((shard) => ledgerShardKey("default", shard)).sort(),
    );

    // Another isolate knows nothing yet: it reads the marks from KV.
    forgetWrittenShards();
    const named = countObjects();
    const report = await (await callWorker("/v1/savings")).json<any>();
    expect(report.decisions).toBe(6);
    expect(report.shards.queried).toBe(shards.size);
    expect(new Set(named)).toEqual(new Set([...shards].map((shard) => `default/${shard}`)));
  });

  it("see a shard that holds only bills", async () => {
    const usage = { input_tokens: 1_000, output_tokens: 100 };
    const res = await callWorker("/v1/sessions", {
      json: { items: [{ session_id: "bill-only", model_name: "claude-opus-4-6", turns: 3, usage }] },
    });
    expect((await res.json<any>()).accepted).toBe(1);
    forgetWrittenShards();
    const named = countObjects();
    const report = await (await callWorker("/v1/savings")).json<any>();
    expect(report.shards.queried).toBe(1);
    expect(new Set(named).size).toBe(1);
    // Asked, yet a bill with no decision is no holdout session (docs/design/ledger.md §2).
    expect(report.holdout.sessions).toBe(0);
  });
});
