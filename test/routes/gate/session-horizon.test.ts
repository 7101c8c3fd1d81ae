import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import defaults from "../../../src/learning/family-defaults.json";
import { EXAMPLE_A, OPUS, postGate, postJson, putRow, resetState } from "../../support/helpers";
import { callWorker } from "../../support/ledger-fixtures";

// The horizon that knows the session (docs/design/economics.md §13), through POST /v1/gate and its batch,
// against the real local KV binding. Expected horizons are worked out here from the shipped session
// lengths by plain counting, not by the worker's Kaplan–Meier code: every calibrated session ended, so
// the mean residual is the mean of L − c over the sessions longer than c, and the lower quartile the
// smallest k that a quarter of them have at most k calls left.

const families = defaults.families as Record<string, { sessions: { main: number[]; subagent: number[] } }>;

function expected(lengths: number[], callIndex: number) {
  const left = lengths.filter((l) => l > callIndex).map((l) => l - callIndex);
  const mean = left.reduce((a, b) => a + b, 0) / left.length;
  const sorted = [...left].sort((a, b) => a - b);
  const low = sorted.find((k) => sorted.filter((x) => x <= k).length >= 0.25 * sorted.length)!;
  return { mean, low, n: lengths.length };
}

const CACHE_AWARE = { ...EXAMPLE_A, pricing_mode: "cache_aware", context_tokens: 60_000 } as const;
const { horizon: _h, ...NO_HORIZON } = CACHE_AWARE;
const { recall_probability: _p, ...NO_PRIORS } = NO_HORIZON;

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("a cache-aware request that tells its session and gives no horizon", () => {
  it("is priced at the remaining calls of its family's sessions of its kind, lower quartile to mean", async () => {
    const body = await (
      await postGate({ ...NO_HORIZON, agent: "claude-code", subagent: false, call_index: 12, dry_run: true })
    ).json<any>();
    const want = expected(families["claude-code"]!.sessions.main, 12);
    expect(body.priors.horizon.source).toBe("family");
    expect(body.priors.horizon.n).toBe(want.n);
    expect(body.priors.horizon.value).toBeCloseTo(want.mean, 9);
    expect(body.inputs.horizon).toBe(Math.round(want.mean));
    expect(body.inputs.horizon_range).toEqual([want.low, Math.round(want.mean)]);
    expect(body.reason).toContain(
      `; horizon from claude-code main sessions (n=${want.n}) at call_index=12: ${want.low} to ${want.mean.toFixed(1)} calls (lower quartile to mean)`,
    );
    // The robust rule decided on the range: its worst corner is the low end.
    expect(body.worst_case.horizon).toBe(want.low);
  });

  it("prices a subagent at its family's far shorter subagent sessions, and keeps what a main session would stub", async () => {
    // A sure recall of a small output: it pays only over a long horizon.
    const risky = { ...NO_HORIZON, output_tokens: 4_000, recall_probability: 1, dry_run: true };
    const sub = await (await postGate({ ...risky, agent: "claude-code", subagent: true })).json<any>();
    const main = await (
      await postGate({ ...risky, agent: "claude-code", subagent: false, call_index: 40 })
    ).json<any>();
    const want = expected(families["claude-code"]!.sessions.subagent, 0);
    expect(sub.priors.horizon).toEqual({ value: expect.closeTo(want.mean, 9), source: "family", n: want.n });
    expect(sub.fire).toBe(false);
    expect(main.fire).toBe(true);
  });

  it("pools the family's two kinds when subagent is not said", async () => {
    const body = await (await postGate({ ...NO_HORIZON, agent: "claude-code", dry_run: true })).json<any>();
    const { main, subagent } = families["claude-code"]!.sessions;
    expect(body.priors.horizon.n).toBe(main.length + subagent.length);
    expect(body.priors.horizon.value).toBeCloseTo(expected([...main, ...subagent], 0).mean, 9);
    expect(body.reason).toContain("; horizon from claude-code sessions (n=");
  });

  it("accepts an agent no family calibrated, prices it from every family pooled, and says so", async () => {
    const body = await (await postGate({ ...NO_HORIZON, agent: "codex", call_index: 3, dry_run: true })).json<any>();
    const all = Object.values(families).flatMap((f) => [...f.sessions.main, ...f.sessions.subagent]);
    expect(body.priors.horizon.source).toBe("pooled");
    expect(body.priors.horizon.n).toBe(all.length);
    expect(body.priors.horizon.value).toBeCloseTo(expected(all, 3).mean, 9);
    expect(body.reason).toContain(
      "horizon from every family's sessions pooled (agent codex has no calibrated sessions)",
    );
  });

  it("decides a batch's items as it decides each alone", async () => {
    const items = [
      { ...NO_HORIZON, agent: "mini-swe-agent", call_index: 5, dry_run: true },
      { ...NO_HORIZON, agent: "claude-code", subagent: true, dry_run: true },
    ];
    const batch = await (await postJson("/v1/gate/batch", { items, dry_run: true })).json<any>();
    for (const [i, item] of items.entries()) {
      const alone = await (await postGate(item)).json<any>();
      expect(batch.decisions[i].priors.horizon).toEqual(alone.priors.horizon);
      expect(batch.decisions[i].reason).toBe(alone.reason);
    }
  });
});

describe("a new cache-aware tenant that names its agent and tool", () => {
  // The family's evidence for mini-swe-agent's bash, pooled here by hand with the config's p of 0.25
  // at weight 10: first the tool's whole evidence, then its band's (the learner's one rule, twice).
  const bash = (defaults.families as any)["mini-swe-agent"].evidence.bash;
  const pool = (end: "charged" | "detected") => {
    const n = bash.lt2k.n + bash["2k-10k"].n;
    const r = bash.lt2k[end] + bash["2k-10k"][end];
    const tool = (10 * 0.25 + r) / (10 + n);
    return (10 * tool + bash.lt2k[end]) / (10 + bash.lt2k.n);
  };

  it("starts from the family's p for the tool, charged to detected, and decides at its high end", async () => {
    const body = await (
      await postGate({ ...NO_PRIORS, output_tokens: 1_500, agent: "mini-swe-agent", tool_name: "bash", dry_run: true })
    ).json<any>();
    expect(body.priors.recall_probability.source).toBe("family");
    expect(body.priors.recall_probability.n).toBe(bash.lt2k.n + bash["2k-10k"].n);
    expect(body.inputs.recall_probability_range[0]).toBeCloseTo(pool("charged"), 12);
    expect(body.inputs.recall_probability_range[1]).toBeCloseTo(pool("detected"), 12);
    expect(body.inputs.recall_probability).toBe(body.inputs.recall_probability_range[1]);
    expect(body.reason).toContain(`; p from mini-swe-agent bash outputs (n=${bash.lt2k.n + bash["2k-10k"].n}): `);
  });

  it("keeps the config's p for a tool the family never saw, and a p the request gives", async () => {
    const unseen = await (
      await postGate({ ...NO_HORIZON, agent: "mini-swe-agent", tool_name: "web.fetch", dry_run: true })
    ).json<any>();
    expect(unseen.priors.recall_probability).toEqual({ value: 0.3, source: "request", n: 0 });
    const config = await (
      await postGate({ ...NO_PRIORS, agent: "mini-swe-agent", tool_name: "web.fetch", dry_run: true })
    ).json<any>();
    expect(config.priors.recall_probability.source).toBe("config");
    const given = await (
      await postGate({ ...NO_HORIZON, agent: "mini-swe-agent", tool_name: "bash", dry_run: true })
    ).json<any>();
    expect(given.priors.recall_probability.source).toBe("request");
  });
});

describe("GET /v1/learning", () => {
  it("shows each family's calibration a new tenant starts from, with its sources and sample sizes", async () => {
    const view = await (await callWorker("/v1/learning")).json<any>();
    const claude = view.families.find((f: { agent: string }) => f.agent === "claude-code");
    const shipped = (defaults.families as any)["claude-code"];
    expect(claude).toEqual({
      agent: "claude-code",
      files: shipped.files,
      repos: shipped.repos,
      sessions: { main: shipped.sessions.main.length, subagent: shipped.sessions.subagent.length },
      tools: Object.keys(shipped.evidence).length,
      source: defaults.source,
    });
    expect(view.families.map((f: { agent: string }) => f.agent).sort()).toEqual(Object.keys(defaults.families).sort());
  });
});

describe("what the session facts leave alone", () => {
  it("answers a seed request exactly as it would without them", async () => {
    const plain = await (await postGate({ ...EXAMPLE_A, dry_run: true })).json<any>();
    const told = await (
      await postGate({ ...EXAMPLE_A, agent: "claude-code", subagent: true, call_index: 7, dry_run: true })
    ).json<any>();
    expect(told).toEqual(plain);
  });

  it("keeps a horizon the request gives, and its source", async () => {
    const body = await (
      await postGate({ ...CACHE_AWARE, agent: "claude-code", call_index: 2, dry_run: true })
    ).json<any>();
    expect(body.priors.horizon).toEqual({ value: 4, source: "request", n: 0 });
    expect(body.reason).not.toContain("horizon from");
    expect(body.worst_case).toBeNull();
  });

  it("answers a cache-aware request that tells nothing as it did before", async () => {
    const body = await (await postGate({ ...NO_HORIZON, dry_run: true })).json<any>();
    expect(body.priors.horizon.source).toBe("config");
    expect(body.inputs.horizon).toBe(4);
  });
});

describe("bad session facts", () => {
  it.each([
    ["call_index", -1, "must be an integer ≥ 0"],
    ["call_index", 2.5, "must be an integer ≥ 0"],
    ["call_index", "3", "must be a number"],
    ["call_index", 1_000_001, "must be at most 1000000"],
    ["subagent", "yes", "must be true or false"],
    ["agent", "Claude Code", "must be 1 to 64 of a-z 0-9 . _ -"],
    ["agent", 7, "must be a string"],
  ])("answers 400 naming %s when it is %j", async (field, value, message) => {
    const res = await postGate({ ...NO_HORIZON, [field]: value });
    expect(res.status).toBe(400);
    const body = await res.json<any>();
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.issues).toEqual([{ path: field, message }]);
  });
});
