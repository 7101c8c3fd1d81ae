import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isExplore, isProbe } from "../../src/ledger";
import { adminCall } from "../support/admin-helpers";
import { call, jsonInit, OPUS, postJson, putRow, resetState } from "../support/helpers";
import { ALICE_TOKEN } from "../support/secrets";
import { callWorker } from "../support/ledger-fixtures";
import { forgetLearned } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";

const TOOL = "read_file";
const GATE = { model_name: "claude-opus-4-6", horizon: 4, recall_probability: 0.3, tool_name: TOOL };
const refresh = async () => (await adminCall("POST", "/v1/admin/learning/refresh?tenant=default", {})).json<any>();
const setBreaker = (body: unknown) => adminCall("PUT", "/v1/admin/learning/breakers/default", body);

async function putConfig(config: Record<string, unknown>) {
  await env.PRICING.put("config:gate", JSON.stringify(config));
  forgetPricing();
  forgetLearned();
}

/** Sessions whose read_file stubs were all recalled at once (turns_after 0): each a realized loss, of varying size (the recall hop's). */
async function losingSessions(n: number, prefix = "lose") {
  const items = [];
  for (let i = 0; i < n; i++) {
    const res = await callWorker("/v1/gate", {
      json: {
        ...GATE,
        output_tokens: 20_000,
        recall_input_tokens: 2_000 + 97 * (i % 11),
        session_id: `${prefix}-${i}`,
      },
    });
    const body = await res.json<any>();
    if (body.fire) items.push({ decision_id: body.decision_id, turns_after: 0, recalled: true });
  }
  expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
  return items.length;
}

/** Session ids that are (or are not) probe sessions of read_file for the default tenant. */
function sessions(probe: boolean, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) if (isProbe("default", `q-${i}`, TOOL, 0.1) === probe) out.push(`q-${i}`);
  return out;
}

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => vi.restoreAllMocks());

describe("the breaker without a holdout (the realized-net rule)", () => {
  it("opens for a tool whose sessions lose, with a data point and a log line carrying the evidence", async () => {
    expect(await losingSessions(40)).toBe(40);
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const report = await refresh();
    expect(report.breaker_changes).toEqual([
      expect.objectContaining({ tool_name: TOOL, from: "closed", to: "open", mode: "auto", rule: "realized_net" }),
    ]);
    const evidence = report.breaker_changes[0].evidence;
    // Exploring sessions (learning_explore_fraction, default 0.02) are set aside from the evidence.
    const exploring = Array.from({ length: 40 }, (_, i) => `lose-${i}`).filter((id) =>
      isExplore("default", id, TOOL, 0.02),
    ).length;
    expect(exploring).toBeGreaterThan(0);
    expect(evidence.sessions).toBe(40 - exploring);
    expect(evidence.verdict).toBe("losing");
    // Net saving per session, positive when the tool saves: the estimate and the whole interval are below 0.
    expect(evidence.estimate).toBeLessThan(0);
    expect(evidence.interval[1]).toBeLessThan(0);
    // The default mode is the seed: each decision judged by the seed's economics, as it was decided.
    expect(evidence.priced).toEqual({ seed: 40 - exploring, cache_reported: 0, cache_as_priced: 0 });
    const point = write.mock.calls.map(([p]) => p).find((p) => p?.blobs?.[3] === "breaker");
    expect(point?.blobs?.slice(2, 4)).toEqual(["breaker_opened", "breaker"]);
    expect(point?.blobs?.[7]).toBe(TOOL);

    const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
    expect(view.tools[0].breaker).toMatchObject({ state: "open", mode: "auto", rule: "realized_net" });
    expect(view.breaker_rule_sees).toMatch(/cannot see costs/);
    expect(view.breaker_log[0]).toMatchObject({
      by: "ops-alice",
      after: { tool_name: TOOL, state: "open", evidence: { verdict: "losing" } },
    });
  });

  it("answers breaker_open with would_fire while open, and probe sessions decide as usual", async () => {
    await losingSessions(40);
    await refresh();
    for (const session_id of sessions(false, 5)) {
      const body = await (await postJson("/v1/gate", { ...GATE, output_tokens: 20_000, session_id })).json<any>();
      expect(body).toMatchObject({ fire: false, reason_code: "breaker_open", would_fire: true });
      expect(body.net_saving_usd).toBeGreaterThan(0);
    }
    for (const session_id of sessions(true, 3)) {
      const body = await (await postJson("/v1/gate", { ...GATE, output_tokens: 20_000, session_id })).json<any>();
      expect(body).toMatchObject({ fire: true, reason_code: "net_positive" });
    }
    // Another tool is not stopped.
    const grep = await (
      await postJson("/v1/gate", {
        ...GATE,
        tool_name: "grep",
        output_tokens: 20_000,
        session_id: sessions(false, 1)[0],
      })
    ).json<any>();
    expect(grep.fire).toBe(true);
  });

  it("stays open at the next refresh, while too little has arrived since it opened to judge", async () => {
    await losingSessions(40);
    await refresh();
    const again = await refresh();
    expect(again.breaker_changes).toEqual([]);
    const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
    expect(view.tools[0].breaker.state).toBe("open");
  });

  it("stays closed on too few sessions", async () => {
    await losingSessions(10);
    expect((await refresh()).breaker_changes).toEqual([]);
  });
});

/** Probe sessions of read_file (and not exploring ones), each reporting its stub recalled at once (a loss) or never (a saving), or three in four ("mixed"). */
async function probeSessions(n: number, outcome: boolean | "mixed", offset = 0) {
  const ids = sessions(true, offset + n * 2)
    .filter((id) => !isExplore("default", id, TOOL, 0.02))
    .slice(offset, offset + n);
  const items = [];
  for (const [i, session_id] of ids.entries()) {
    const body = await (
      await callWorker("/v1/gate", {
        json: {
          ...GATE,
          output_tokens: 20_000 + 500 * (i % 7),
          recall_input_tokens: 2_000 + 97 * (i % 11),
          session_id,
        },
      })
    ).json<any>();
    expect(body.fire).toBe(true);
    const recalled = outcome === "mixed" ? i % 4 !== 0 : outcome;
    // Mixed: a kept stub carried one turn, so by the seed's arithmetic (how these decisions are judged)
    // its saving about offsets three recall hops, and the probes stay inconclusive.
    const turns = recalled ? 0 : outcome === "mixed" ? 1 : 8;
    items.push({ decision_id: body.decision_id, turns_after: turns, recalled });
  }
  expect((await callWorker("/v1/outcomes", { json: { items } })).status).toBe(200);
}

describe("an open breaker, judged on one window (no flapping)", () => {
  it("never closes while its probes fall short of showing a saving, however many read inconclusive", async () => {
    await losingSessions(40);
    const opened = await refresh();
    expect(opened.breaker_changes).toEqual([expect.objectContaining({ to: "open" })]);
    for (let round = 0; round < 4; round++) {
      await probeSessions(15, "mixed", round * 15);
      const report = await refresh();
      expect(report.breaker_changes, JSON.stringify(report.breaker_changes)).toEqual([]);
    }
    // 60 probes, three in four losing: inconclusive, which once closed it.
    const evidence = (await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>()).tools[0].breaker
      .evidence;
    expect(evidence).toMatchObject({ sessions: 60, verdict: "inconclusive" });
    const view = await (await adminCall("GET", "/v1/admin/learning?tenant=default")).json<any>();
    expect(view.tools[0].breaker).toMatchObject({
      state: "open",
      opened_with: opened.breaker_changes[0].evidence.sessions,
    });
  });

  it("closes once its probes show a saving, on no fewer sessions than opened it", async () => {
    await losingSessions(40);
    const openedWith = (await refresh()).breaker_changes[0].evidence.sessions;
    // Clearly saving, but fewer sessions than opened it: still open.
    await probeSessions(openedWith - 5, false);
    expect((await refresh()).breaker_changes).toEqual([]);
    await probeSessions(5, false, openedWith - 5);
    const closed = await refresh();
    expect(closed.breaker_changes).toEqual([expect.objectContaining({ from: "open", to: "closed", mode: "auto" })]);
    expect(closed.breaker_changes[0].evidence.sessions).toBe(openedWith);
    expect(closed.breaker_changes[0].evidence.interval[0]).toBeGreaterThan(0);
    // Judged from its closing on: the losing stretch that opened it does not reopen it.
    expect((await refresh()).breaker_changes).toEqual([]);
  });
});

describe("ops forcing a breaker", () => {
  it("forces it closed, audited with history, and rolls back to the rule", async () => {
    await losingSessions(40);
    await refresh();
    const forced = await setBreaker({ tool_name: TOOL, state: "closed" });
    expect(forced.status).toBe(200);
    const body = await forced.json<any>();
    expect(body).toMatchObject({ overrides: { [TOOL]: "closed" }, version: 1, changed: true });
    expect(body.refresh.breaker_changes).toEqual([
      expect.objectContaining({ tool_name: TOOL, from: "open", to: "closed", mode: "closed" }),
    ]);
    const decided = await (
      await postJson("/v1/gate", { ...GATE, output_tokens: 20_000, session_id: sessions(false, 1)[0] })
    ).json<any>();
    expect(decided.fire).toBe(true);

    const history = await (await adminCall("GET", "/v1/admin/learning/breakers/default/history")).json<any>();
    expect(history).toMatchObject({ subject: "breakers:default", current_version: 1 });
    expect(history.versions[0]).toMatchObject({
      action: "put",
      by: "ops-alice",
      before: null,
      after: { [TOOL]: "closed" },
    });

    const rolled = await adminCall("POST", "/v1/admin/learning/breakers/default/rollback", { version: 0 });
    expect(rolled.status).toBe(200);
    expect(await rolled.json<any>()).toMatchObject({ overrides: {}, version: 2 });
    const after = await refresh();
    expect(after.breaker_changes).toEqual([expect.objectContaining({ to: "open", mode: "auto" })]);
  });

  it("forces it open, and hands it back with auto", async () => {
    await losingSessions(5);
    await refresh();
    const opened = await (await setBreaker({ tool_name: TOOL, state: "open" })).json<any>();
    expect(opened.refresh.breaker_changes).toEqual([expect.objectContaining({ to: "open", mode: "open" })]);
    const stopped = await (
      await postJson("/v1/gate", { ...GATE, output_tokens: 20_000, session_id: sessions(false, 1)[0] })
    ).json<any>();
    expect(stopped.reason_code).toBe("breaker_open");
    const auto = await (await setBreaker({ tool_name: TOOL, state: "auto" })).json<any>();
    expect(auto.overrides).toEqual({});
    // Back to the rule: open, and judged on what arrived since (nothing yet), so it stays open.
    expect(auto.refresh.breaker_changes).toEqual([]);
  });

  it("answers 404 for a tool the tenant never saw, and 400 naming a bad field", async () => {
    const unknown = await setBreaker({ tool_name: "never_seen", state: "open" });
    expect(unknown.status).toBe(404);
    expect((await unknown.json<any>()).error.issues[0].path).toBe("tool_name");
    const bad = await setBreaker({ tool_name: TOOL, state: "ajar" });
    expect(bad.status).toBe(400);
    expect((await bad.json<any>()).error.issues[0].path).toBe("state");
  });
});

describe("the breaker with a holdout (the per-tool verdict of the confidence sequence)", () => {
  it("opens when treatment costs more than holdout per session, and says it sees what the model cannot", async () => {
    await putConfig({ holdout_fraction: 0.5 });
    const bills = [];
    for (let i = 0; i < 90; i++) {
      const session_id = `h-${i}`;
      const body = await (
        await callWorker("/v1/gate", { json: { ...GATE, output_tokens: 20_000, session_id } })
      ).json<any>();
      const treated = body.reason_code !== "holdout";
      // Treated sessions re-ran the tool: their bills carry the output again.
      const input_tokens = 100_000 + 1_000 * (i % 7) + (treated ? 40_000 : 0);
      bills.push({
        session_id,
        model_name: "claude-opus-4-6",
        turns: 5,
        usage: { input_tokens, output_tokens: 1_000 },
      });
    }
    expect((await callWorker("/v1/sessions", { json: { items: bills } })).status).toBe(200);
    const report = await refresh();
    expect(report.breaker_changes).toEqual([expect.objectContaining({ tool_name: TOOL, to: "open", rule: "holdout" })]);
    expect(report.breaker_changes[0].evidence.treated).toBeGreaterThanOrEqual(30);
    expect(report.breaker_changes[0].evidence.held_out).toBeGreaterThanOrEqual(30);
    const view = await (await callWorker("/v1/learning")).json<any>();
    expect(view.breaker_rule_sees).toMatch(/^holdout/);
  });
});

describe("POST /v1/admin/learning/refresh", () => {
  beforeEach(async () => {
    await reset();
    await resetState();
  });

  it("takes no body at all as {}, as docs/learning.md shows it", async () => {
    const res = await adminCall("POST", "/v1/admin/learning/refresh?tenant=default");
    expect(res.status).toBe(200);
    expect((await res.json<any>()).status).toBe("published");
  });

  it("still refuses a body that is not {} (400) or not JSON by type (415)", async () => {
    const headers = { authorization: `Bearer ${ALICE_TOKEN}` };
    const field = await call("/v1/admin/learning/refresh?tenant=default", jsonInit("POST", { tenant: "x" }, headers));
    expect(field.status).toBe(400);
    const typed = await call("/v1/admin/learning/refresh?tenant=default", {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain" },
      body: "{}",
    });
    expect(typed.status).toBe(415);
    const untyped = await call("/v1/admin/learning/refresh?tenant=default", { method: "POST", headers, body: "{}" });
    expect(untyped.status).toBe(415);
  });
});
