import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  confidenceSequence,
  gatherToolSessions,
  holdoutKey,
  inHoldout,
  ledgerShard,
  type PricedSession,
  type ToolSessionRow,
  toolVerdicts,
} from "../../src/ledger";
import { rowsOfPairs } from "../../src/ledger/stats/pairs";
import { tenantVerdict } from "../../src/ledger/stats/verdicts";
import { seeded } from "../../build/seeded.mjs";
import { decisionIdOf, seedDecision } from "../support/ledger-fixtures";

const WINDOW = { from: 0, to: 4_000_000_000_000 };
const hanging = env.LEDGER_HANGING;
const holder = () => hanging.get(hanging.idFromName("probe"));

beforeAll(async () => {
  await ledgerShard(env.LEDGER, "warm-up", 0).toolPairs("warm-up", WINDOW);
  await holder().waiting();
}, 30_000);

afterEach(async () => {
  await holder().release();
  vi.restoreAllMocks();
});

const bill = (session_id: string, cost: number): PricedSession => ({
  session_id,
  model_name: "claude-opus-4-6",
  priced_as: "claude-opus-4-6",
  turns: 10,
  usage: { input_tokens: 1_000, output_tokens: 500 },
  cost_usd: cost,
  report: JSON.stringify([session_id, cost]),
});

describe("the holdout per (session, tool)", () => {
  const sessions = Array.from({ length: 4_000 }, (_, i) => `conv-${i}`);
  const draw = (s: string, tool: string | null, fraction: number) =>
    inHoldout("acme", holdoutKey(s, tool, "dec_0_x"), fraction);

  it("draws each tool's arm in a session independently of the other tools'", () => {
    const both = sessions.filter((s) => draw(s, "read_file", 0.2) && draw(s, "grep", 0.2)).length;
    const readFile = sessions.filter((s) => draw(s, "read_file", 0.2)).length;
    expect(readFile / sessions.length).toBeGreaterThan(0.17);
    expect(readFile / sessions.length).toBeLessThan(0.23);
    // Independent arms: both held out about 0.2 × 0.2 of the time, not 0.2.
    expect(both / sessions.length).toBeGreaterThan(0.02);
    expect(both / sessions.length).toBeLessThan(0.06);
  });

  it("is deterministic and nested: raising the fraction only adds pairs", () => {
    for (const s of sessions.slice(0, 500)) {
      expect(draw(s, "grep", 0.2)).toBe(draw(s, "grep", 0.2));
      if (draw(s, "grep", 0.1)) expect(draw(s, "grep", 0.2)).toBe(true);
    }
  });

  it('uses the tool name "" without a tool, and the decision id without a session', () => {
    expect(holdoutKey("conv-1", null, "dec_0_a")).toBe(holdoutKey("conv-1", "", "dec_0_b"));
    expect(holdoutKey(null, "grep", "dec_0_a")).toBe("dec_0_a");
    expect(holdoutKey("conv-1", "grep", "dec_0_a")).not.toBe(holdoutKey("conv-1", "read_file", "dec_0_a"));
  });
});

describe("a shard's (session, tool) pairs", () => {
  it("gives one row per billed session and tool it had a decision about, with that tool's arm and the session's cost", async () => {
    const tenant = `pairs-${Date.now()}`;
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await shard.record(
      tenant,
      [
        seedDecision({
          decision_id: decisionIdOf(0, 1),
          session_id: "s1",
          tool_name: "read_file",
          holdout: true,
          fire: false,
        }),
        seedDecision({
          decision_id: decisionIdOf(0, 2),
          session_id: "s1",
          tool_name: "read_file",
          holdout: true,
          fire: false,
        }),
        seedDecision({ decision_id: decisionIdOf(0, 3), session_id: "s1", tool_name: "grep" }),
        seedDecision({ decision_id: decisionIdOf(0, 4), session_id: "s1", tool_name: null }),
        seedDecision({ decision_id: decisionIdOf(0, 5), session_id: "s2", tool_name: "grep" }),
        seedDecision({ decision_id: decisionIdOf(0, 6), session_id: "unbilled", tool_name: "grep" }),
      ],
      30,
    );
    await shard.reportSessions(tenant, 1_000, [bill("s1", 2.5)], 30);
    await shard.reportSessions(tenant, 2_000, [bill("s2", 1.5)], 30);
    const rows = rowsOfPairs(await shard.toolPairs(tenant, WINDOW));
    const byKey = (r: ToolSessionRow) => `${r.session_id}/${r.tool_name}`;
    expect(rows.sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual([
      { tool_name: "", session_id: "s1", at: 1_000, treated: true, cost: 2.5 },
      { tool_name: "grep", session_id: "s1", at: 1_000, treated: true, cost: 2.5 },
      { tool_name: "read_file", session_id: "s1", at: 1_000, treated: false, cost: 2.5 },
      { tool_name: "grep", session_id: "s2", at: 2_000, treated: true, cost: 1.5 },
    ]);
    expect(rowsOfPairs(await shard.toolPairs(tenant, { ...WINDOW, tool_name: "grep" }))).toHaveLength(2);
    expect(rowsOfPairs(await shard.toolPairs(tenant, { from: 1_500, to: 3_000 }))).toHaveLength(1);
    expect(rowsOfPairs(await shard.toolPairs("someone-else", WINDOW))).toEqual([]);
  });
});

describe("the per-tool verdicts", () => {
  /** Two tools in the same sessions, each with its own arm: read_file adds $0.30 when treated, grep saves $0.30. */
  function mixedWorld(n: number, seed: number, fraction = 0.2): ToolSessionRow[] {
    const next = seeded(seed);
    const rows: ToolSessionRow[] = [];
    for (let i = 0; i < n; i++) {
      const readTreated = next() >= fraction;
      const grepTreated = next() >= fraction;
      const cost = 2 + next() * 0.5 + (readTreated ? 0.3 : 0) - (grepTreated ? 0.3 : 0);
      const session_id = `s${String(i).padStart(5, "0")}`;
      rows.push({ tool_name: "read_file", session_id, at: i, treated: readTreated, cost });
      rows.push({ tool_name: "grep", session_id, at: i, treated: grepTreated, cost });
    }
    return rows;
  }

  it("tells a losing tool from a saving one that shares its sessions", () => {
    const verdicts = toolVerdicts(mixedWorld(1_000, 7), 0.2);
    expect(verdicts.get("read_file")?.verdict).toBe("losing");
    expect(verdicts.get("grep")?.verdict).toBe("saving");
    expect(verdicts.get("read_file")?.estimate).toBeGreaterThan(0.15);
    expect(verdicts.get("grep")?.estimate).toBeLessThan(-0.15);
  });

  it("reads the sessions in report order (time, then session id), however they arrive", () => {
    const rows = mixedWorld(200, 3).map((r) => ({ ...r, at: Math.floor(r.at / 7) }));
    const shuffled = [...rows].sort((a, b) => (a.session_id < b.session_id ? 1 : -1));
    const ordered = rows.filter((r) => r.tool_name === "grep");
    expect(toolVerdicts(shuffled, 0.2).get("grep")).toEqual(confidenceSequence(ordered, 0.8));
  });

  it("combines the tools tenant-wide by share, with each tool's bounds at α ÷ K", () => {
    const rows = mixedWorld(1_000, 11);
    const tenant = tenantVerdict(rows, 0.2, 2_000);
    const read = confidenceSequence(
      rows.filter((r) => r.tool_name === "read_file"),
      0.8,
      0.025,
    );
    const grep = confidenceSequence(
      rows.filter((r) => r.tool_name === "grep"),
      0.8,
      0.025,
    );
    expect(tenant.tools).toBe(2);
    expect(tenant.alpha_per_tool).toBe(0.025);
    expect(tenant.estimate).toBeCloseTo(0.5 * read.estimate! + 0.5 * grep.estimate!, 12);
    expect(tenant.interval![0]).toBeCloseTo(0.5 * read.interval![0] + 0.5 * grep.interval![0], 12);
    expect(tenant.interval![1]).toBeCloseTo(0.5 * read.interval![1] + 0.5 * grep.interval![1], 12);
  });

  it("withholds the tenant-wide verdict while any tool has too few sessions per arm", () => {
    const rows = [
      ...mixedWorld(1_000, 5),
      { tool_name: "rare", session_id: "x", at: 5, treated: true, cost: 1 },
      { tool_name: "rare", session_id: "y", at: 6, treated: false, cost: 2 },
    ];
    expect(tenantVerdict(rows, 0.2, 1_002)).toMatchObject({ verdict: "inconclusive", withheld: "too_few_sessions" });
  });
});

describe("gathering the pairs across a tenant's shards", () => {
  it("collects every shard's rows", async () => {
    const tenant = `gather-${Date.now()}`;
    for (const shard of [0, 2]) {
      const s = ledgerShard(env.LEDGER, tenant, shard);
      await s.record(tenant, [seedDecision({ decision_id: decisionIdOf(shard, 1), session_id: `s${shard}` })], 30);
      await s.reportSessions(tenant, 1_000, [bill(`s${shard}`, 1)], 30);
    }
    const { rows, unavailable } = await gatherToolSessions(env.LEDGER, tenant, 3, WINDOW, 5_000);
    expect(unavailable).toBe(0);
    expect(rows.map((r) => r.session_id).sort()).toEqual(["s0", "s2"]);
  });

  it("counts a shard that does not answer within ledger_timeout_ms as unavailable instead of waiting on it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const started = Date.now();
    const { rows, unavailable } = await gatherToolSessions(hanging as unknown as Env["LEDGER"], "probe", 2, WINDOW, 50);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(unavailable).toBe(2);
    expect(rows).toEqual([]);
  });
});
