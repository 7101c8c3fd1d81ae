import { describe, expect, it } from "vitest";
import seed from "../../pricing.seed.json" with { type: "json" };
import { CACHE_TTL_SECONDS } from "../../src/gate";
import { parseTranscript, priceBook, replayTrace, type SeedRow, type TraceReplay } from "../../src/replay";
import { usageOf } from "../../src/replay/formats/codex";
import { codexRollout } from "./fixtures";
import { miniSweAgentTraj } from "./fixtures-trajectories";

// Only the seed: a user who brings no pricing file of their own.
const prices = priceBook(seed.models as Record<string, SeedRow>);
const story = { turns: 8, outputChars: 8_000 };

describe("replay of today's agents with the seed alone", () => {
  it.each([
    "gpt-5-codex",
    "gpt-5.1-codex",
    "gpt-5.1-codex-max",
    "gpt-5.1-codex-mini",
    "gpt-5.2-codex",
    "gpt-5.3-codex",
  ])("prices every call of a Codex rollout on %s and reproduces its recorded bill", (model) => {
    const replay = replayTrace(parseTranscript(codexRollout({ ...story, model }), "r.jsonl").trace!, prices);
    expect("skipped" in replay).toBe(false);
    expect(Math.abs((replay as TraceReplay).check!.error_pct)).toBeLessThan(0.01);
  });

  it.each([
    "deepseek/deepseek-chat",
    "deepseek/deepseek-reasoner",
    "openrouter/deepseek/deepseek-chat",
    "deepseek-chat",
  ])("prices a mini-swe-agent run on %s from DeepSeek's row", (model) => {
    const replay = replayTrace(parseTranscript(miniSweAgentTraj({ ...story, model }), "t.traj.json").trace!, prices);
    expect("skipped" in replay).toBe(false);
    expect((replay as TraceReplay).policies[0]!.cost_usd).toBeGreaterThan(0);
  });

  it("finds the rows under the names LiteLLM and OpenRouter send", () => {
    expect(prices("openrouter/anthropic/claude-sonnet-4-6", null)?.canonical).toBe("claude-sonnet-4-6");
    expect(prices("openai/gpt-5.1-codex-max", null)?.canonical).toBe("gpt-5.1-codex-max");
    expect(prices("x-ai/grok-4.1-fast:free", null)?.canonical).toBe("grok-4.1-fast:free");
    expect(prices("gpt-5.1-2025-11-13", null)?.canonical).toBe("gpt-5.1");
  });

  it("prices Sonnet 5 at its introductory 2/10 until 2026-08-31 and at 3/15 from September", () => {
    expect(prices("claude-sonnet-5", Date.parse("2026-08-31T23:59:59Z"))?.row).toMatchObject({ input: 2, output: 10 });
    expect(prices("claude-sonnet-5", Date.parse("2026-09-01T00:00:00Z"))?.row).toMatchObject({ input: 3, output: 15 });
  });

  it("expires a GPT-5.6 session's cache by its 30-minute rule, and an earlier model's by 5 minutes", () => {
    const ttlOf = (gapMs: number) =>
      (
        replayTrace(
          parseTranscript(codexRollout({ ...story, model: "gpt-5.6-terra", gapMs }), "r.jsonl").trace!,
          prices,
        ) as TraceReplay
      ).calibration.ttl;
    expect(ttlOf(20 * 60_000)).toBe("30m");
    expect(CACHE_TTL_SECONDS["30m"]).toBe(1_800);
    const gpt5 = replayTrace(parseTranscript(codexRollout({ ...story, model: "gpt-5" }), "r.jsonl").trace!, prices);
    expect((gpt5 as TraceReplay).calibration.ttl).toBe("5m");
  });

  it("reads GPT-5.6's cache_write_tokens as writes billed at the row's cache_write", () => {
    expect(
      usageOf({ input_tokens: 10_000, cached_input_tokens: 6_000, cache_write_tokens: 3_000, output_tokens: 10 }),
    ).toEqual({
      input: 1_000,
      cache_read: 6_000,
      cache_write_5m: 3_000,
      cache_write_1h: 0,
      output: 10,
    });
  });
});
