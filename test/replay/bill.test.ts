import { describe, expect, it } from "vitest";
import {
  parseTranscript,
  priceBook,
  replayTrace,
  TraceBuilder,
  type SeedRow,
  type TraceReplay,
} from "../../src/replay";
import seed from "../../pricing.seed.json" with { type: "json" };
import {
  atifTrajectory,
  claudeCodeSession,
  codexRollout,
  miniSweAgentTraj,
  offloadLog,
  SYSTEM_TOKENS,
  sweAgentTraj,
} from "./fixtures";

const prices = priceBook(seed.models as Record<string, SeedRow>);
const story = { turns: 24, outputChars: (k: number) => (k % 6 === 0 ? 60_000 : 6_000) };
const replay = (text: string, path: string) => replayTrace(parseTranscript(text, path).trace!, prices) as TraceReplay;

describe("the bill model", () => {
  // The stated error: keep-everything reproduces each file's recorded bill within 0.01%.
  it.each([
    ["claude-code", claudeCodeSession(story)],
    ["codex", codexRollout(story)],
    ["mini-swe-agent", miniSweAgentTraj(story)],
    ["atif", atifTrajectory(story)],
    ["offload-log", offloadLog(story)],
  ])("reproduces the recorded bill of a %s file with keep-everything, error reported per file", (_format, text) => {
    const r = replay(text, "f");
    expect(r.check).not.toBeNull();
    expect(r.check!.calls).toBe(24);
    expect(Math.abs(r.check!.error_pct)).toBeLessThan(0.01);
    expect(r.policies[0]!.cost_usd).toBeCloseTo(r.check!.modelled_usd, 12);
  });

  it("calibrates a factor per transcript where chars ÷ 4 undercounts, and fits the unseen system prompt as a constant", () => {
    const r = replay(claudeCodeSession(story), "f");
    // The synthetic text is 0.5 tokens a character: twice chars ÷ 4.
    expect(r.calibration).toMatchObject({ method: "usage", known_calls: 24, ttl: "5m" });
    expect(r.calibration.factor).toBeCloseTo(2, 2);
    expect(r.calibration.constant_tokens).toBeCloseTo(SYSTEM_TOKENS, -1);
  });

  it("calibrates a SWE-agent file without per-call usage on its recorded tokens_sent, and says so", () => {
    const r = replay(sweAgentTraj(story), "t.traj");
    expect(r.check).toBeNull();
    expect(r.calibration.method).toBe("totals");
    expect(r.calibration.factor).toBeCloseTo(2, 2);
    expect(r.notes).toContain("no timestamps: the cache is assumed never to expire");
  });

  it("writes everything again when the calls are further apart than the cache lives", () => {
    const close = replay(claudeCodeSession({ ...story, gapMs: 60_000 }), "f");
    const apart = replay(claudeCodeSession({ ...story, gapMs: 6 * 60_000 }), "f");
    expect(Math.abs(apart.check!.error_pct)).toBeLessThan(0.01);
    expect(apart.policies[0]!.cost_usd).toBeGreaterThan(3 * close.policies[0]!.cost_usd);
  });

  it("reports a transcript of an unknown model and skips it", () => {
    const r = replayTrace(parseTranscript(claudeCodeSession({ model: "claude-imaginary-9" }), "f").trace!, prices);
    expect(r).toEqual({
      session: "cc-session-1",
      format: "claude-code",
      skipped: 'unknown model "claude-imaginary-9": no pricing row (add one to the seed, or pass a pricing file)',
    });
  });

  it("finds a row under a provider prefix and a dated suffix", () => {
    expect(prices("anthropic/claude-sonnet-4-5-20250929", null)?.canonical).toBe("claude-sonnet-4-5");
    expect(prices("openai/gpt-5", null)?.canonical).toBe("gpt-5");
  });

  it("prices a call made after its model retired at the replacement, as the provider bills it", () => {
    const book = priceBook({
      old: { input: 1, output: 2, retires_at: "2026-12-01", replaced_by: "new" },
      new: { input: 3, output: 4 },
    });
    expect(book("old", Date.parse("2026-11-30T12:00:00Z"))?.canonical).toBe("old");
    expect(book("old", Date.parse("2026-12-01T00:00:00Z"))?.canonical).toBe("new");
    expect(
      priceBook({ old: { input: 1, output: 2, retires_at: "2026-12-01" } })("old", Date.parse("2026-12-02T00:00:00Z")),
    ).toBeNull();
  });

  it("prices each call at the row in force at its timestamp", () => {
    const scheduled = priceBook({
      m: { input: 1, output: 2, provider: "x", scheduled: [{ effective_at: "2027-01-01T00:00:00Z", input: 3 }] },
    });
    expect(scheduled("m", Date.parse("2026-12-31T23:59:59Z"))?.row.input).toBe(1);
    expect(scheduled("m", Date.parse("2027-01-01T00:00:00Z"))?.row.input).toBe(3);
  });
});

describe("a compaction the transcript does not mark", () => {
  it("is named in the notes when a call's recorded input falls below half the previous one's", () => {
    const b = new TraceBuilder("claude-code", "unmarked");
    const u = (read: number, write: number) => ({
      input: 3,
      cache_read: read,
      cache_write_5m: write,
      cache_write_1h: 0,
      output: 10,
    });
    b.add({ kind: "user", text: "go" });
    b.call("claude-sonnet-4-5", Date.parse("2026-11-01T10:00:00Z"), u(0, 40_000), 0);
    b.add({ kind: "assistant", text: "more" });
    b.call("claude-sonnet-4-5", Date.parse("2026-11-01T10:01:00Z"), u(40_000, 500), 1);
    b.add({ kind: "assistant", text: "after an unmarked compaction" });
    b.call("claude-sonnet-4-5", Date.parse("2026-11-01T10:02:00Z"), u(0, 9_000), 2);
    const r = replayTrace(b.finish(), prices) as TraceReplay;
    expect(r.notes).toContain(
      "1 calls whose recorded input fell by more than half with no compaction in the transcript: the modelled history may hold parts the real input had dropped",
    );
  });
});
