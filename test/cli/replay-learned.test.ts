import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { CorpusFile } from "../../scripts/replay/corpus";
import { familyDefaultsOf, learnedPriors } from "../../scripts/replay/learned";
import { spliceGenerated } from "../../scripts/replay/shares";
import {
  gateLearned,
  keepEverything,
  priceBook,
  replayTrace,
  type SeedRow,
  TraceBuilder,
  type TraceReplay,
} from "../../src/replay";
import seed from "../../pricing.seed.json" with { type: "json" };

/** A replayed file as the learner reads it: its repository in the path, its length, its first call's time. */
function file(repo: string, name: string, calls: number, at: number, charged = 0): CorpusFile {
  return {
    path: `/corpus/${repo}/${name}`,
    format: "claude-code",
    session: name,
    parent: null,
    model: "claude-sonnet-4-5",
    model_supplied: false,
    calls,
    recorded_calls: calls,
    issues: [],
    skipped: null,
    usage_check: null,
    total_check: null,
    keep_usd: 1,
    aligned: { calls: 0, pct: 0 },
    ideal_cache_usd: null,
    policies: [],
    learned: {
      first_at: at,
      recall_evidence: { Read: { lt2k: { n: 10, charged, detected: 5 } } },
      priors: {},
    },
    ms: 0,
  };
}

const repoOf = (path: string) => path.split("/")[2]!;
const others = Array.from({ length: 6 }, (_, k) => file("other", `o${k}`, 40 + 10 * k, k));

describe("the priors gate_learned decides a file with", () => {
  it("come from other repositories and the file's own repository's earlier sessions, never itself or a later one", () => {
    const mine = (lengths: number[]) => lengths.map((calls, k) => file("mine", `m${k}`, calls, 100 + k));
    const base = learnedPriors([...others, ...mine([5, 5, 5, 5, 5, 6, 300, 7])], repoOf);
    // The sixth session of "mine" sees five earlier ones of 5 calls and the other repository's.
    // The mean end of the range; its low end is the remaining calls' lower quartile.
    const at = (priors: ReturnType<typeof base>) => priors.horizon(0)[1];
    const sixth = at(base("/corpus/mine/m5"));
    // Changing itself or a later session changes nothing it was decided with.
    expect(at(learnedPriors([...others, ...mine([5, 5, 5, 5, 5, 900, 1, 1])], repoOf)("/corpus/mine/m5"))).toBe(sixth);
    // Changing an earlier one does.
    expect(at(learnedPriors([...others, ...mine([50, 5, 5, 5, 5, 6, 300, 7])], repoOf)("/corpus/mine/m5"))).not.toBe(
      sixth,
    );
    // Its first session has no earlier one of its own: the other repository's lengths alone, 65 calls on average.
    expect(at(base("/corpus/mine/m0"))).toBeCloseTo((40 + 50 + 60 + 70 + 80 + 90) / 6, 12);
    // A quarter of those six have at most 50 calls: the range's low end.
    expect(base("/corpus/mine/m0").horizon(0)[0]).toBe(50);
  });

  it("leave the file's own repository out of the defaults, and carry p as charged … detected", () => {
    const mine = [file("mine", "m0", 10, 100, 9)];
    const priors = learnedPriors([...others, ...mine], repoOf)("/corpus/mine/m0");
    // Only the other repository's evidence: 0 charged and 5 detected of 60, pooled toward 0.25 with weight 10.
    expect(priors.recall("Read", "lt2k")[0]).toBeCloseTo((10 * 0.25 + 0) / 70, 3);
    expect(priors.recall("Read", "lt2k")[1]).toBeCloseTo((10 * 0.25 + 30) / 70, 3);
  });

  it("write the shipped defaults per agent family with their sources and sample sizes", () => {
    const doc = familyDefaultsOf(others, repoOf, "test");
    expect(doc.families["claude-code"]).toMatchObject({ files: 6, repos: ["other"] });
    expect(doc.families["claude-code"]!.sessions.main).toEqual([40, 50, 60, 70, 80, 90]);
  });
});

describe("gate_learned", () => {
  const prices = priceBook(seed.models as Record<string, SeedRow>);
  function session() {
    const b = new TraceBuilder("claude-code", "learned");
    b.add({ kind: "user", text: "go" });
    let input = 4_000;
    for (let i = 0; i < 12; i++) {
      b.call(
        "claude-sonnet-4-5",
        Date.UTC(2026, 10, 1) + i * 30_000,
        {
          input: 3,
          cache_read: input - 3 - (i === 0 ? 0 : 6_000),
          cache_write_5m: i === 0 ? 0 : 6_000,
          cache_write_1h: 0,
          output: 50,
        },
        i,
      );
      b.add({ kind: "tool_call", text: `{"command":"cat f${i}"}`, tool: "Bash", call_id: `c${i}` });
      b.add({ kind: "tool_output", text: "x".repeat(24_000), call_id: `c${i}` });
      input += 6_000;
    }
    return b.finish();
  }
  const run = (horizon: number | [number, number], range: [number, number]) => {
    const logged: number[] = [];
    const horizons: [number, number] = typeof horizon === "number" ? [horizon, horizon] : horizon;
    const policy = gateLearned(
      { horizon: () => horizons, recall: () => range, cache_hit_rate: 0.9, stub_tokens: 200 },
      (d) => logged.push(d.call),
    );
    const r = replayTrace(session(), prices, [keepEverything(), policy]) as TraceReplay;
    return { stubbed: r.policies[1]!.stubbed, logged };
  };

  it("stubs what pays over a long horizon at both ends of p, and logs each decision with what it knew", () => {
    const long = run(80, [0.01, 0.3]);
    expect(long.stubbed).toBeGreaterThan(5);
    expect(long.logged.length).toBe(11);
  });

  it("keeps everything where the recall's high end costs more than a short horizon saves", () => {
    expect(run(1, [0.01, 1]).stubbed).toBe(0);
  });

  it("keeps what a long mean horizon would stub when the session's short end does not pay", () => {
    expect(run(80, [0.9, 0.9]).stubbed).toBeGreaterThan(0);
    expect(run([1, 80], [0.9, 0.9]).stubbed).toBe(0);
  });
});

describe("the losing files' table the benchmark writes into docs/replay.md", () => {
  it("replaces only what stands between its markers, and refuses a page without them", () => {
    const page = "intro\n<!-- losses:start -->\nold row\n<!-- losses:end -->\noutro";
    expect(spliceGenerated(page, "losses", ["| a |", "| b |"])).toBe(
      "intro\n<!-- losses:start -->\n| a |\n| b |\n<!-- losses:end -->\noutro",
    );
    expect(() => spliceGenerated("no markers", "losses", [])).toThrow(/markers/);
  });

  it("finds both markers once in the guide", () => {
    const guide = readFileSync(resolve(import.meta.dirname, "../../docs/replay.md"), "utf8");
    expect(guide.split("<!-- losses:start -->").length).toBe(2);
    expect(guide.split("<!-- losses:end -->").length).toBe(2);
  });
});
