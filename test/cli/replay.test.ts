import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../scripts/replay/cli";
import {
  atifTrajectory,
  claudeCodeSession,
  codexRollout,
  miniSweAgentTraj,
  offloadLog,
  sweAgentTraj,
} from "../replay/fixtures";

const dir = mkdtempSync(join(tmpdir(), "offload-gate-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const story = { turns: 20, outputChars: (k: number) => (k % 5 === 0 ? 60_000 : 8_000) };
mkdirSync(join(dir, "runs", "claude"), { recursive: true });
writeFileSync(join(dir, "runs", "claude", "cc.jsonl"), claudeCodeSession(story));
writeFileSync(join(dir, "runs", "rollout-1.jsonl"), codexRollout(story));
writeFileSync(join(dir, "runs", "a.traj"), sweAgentTraj(story));
writeFileSync(join(dir, "runs", "b.traj.json"), miniSweAgentTraj(story));
writeFileSync(join(dir, "runs", "atif.json"), atifTrajectory(story));
writeFileSync(join(dir, "runs", "log.jsonl"), offloadLog(story));
writeFileSync(join(dir, "runs", "notes.json"), '{"x": 1}');
writeFileSync(join(dir, "unknown.jsonl"), claudeCodeSession({ model: "claude-imaginary-9" }));

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), tty: false });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("npm run replay", () => {
  it("prints the policy table for a folder of every format, with the check against the recorded bills", async () => {
    const { code, out, err } = await run([join(dir, "runs")]);
    expect(code).toBe(0);
    expect(out).toMatch(/^replay: 6 sessions, 120 calls \(0 skipped\); pricing: cache_aware \(the default\)/);
    expect(out).toMatch(
      /keep-everything check: modelled \$\S+ against recorded \$\S+ over the 100 calls with usage: error [+−]?0\.00\d%/,
    );
    for (const policy of [
      "keep_everything",
      "gate_seed",
      "gate_cache_aware",
      "gate_plan",
      "clear_tool_uses",
      "mask_last_10 ",
      "mask_last_10_every_10",
      "size_only",
      "deepagents_evict",
      "claude_code_persist",
    ]) {
      expect(out).toContain(`\n${policy}`);
    }
    // Each gate policy's pre-filter under the table: the seed's reference threshold, cache_aware's break-even.
    expect(out).toContain(
      "\npre-filters: gate_seed 10,000 tokens; gate_cache_aware economic (floor none); gate_plan economic (floor none, asked every 10 calls or at the paying batch)\n",
    );
    expect(out).toContain("per tool\n");
    expect(out).toContain("per session\n");
    // The file that is no transcript is reported by path with what was expected, and the rest still ran.
    expect(err).toContain(`${join(dir, "runs", "notes.json")}: expected a Claude Code session`);
  });

  it("reports and skips a session of an unknown model", async () => {
    const { code, err, out } = await run([join(dir, "unknown.jsonl")]);
    expect(code).toBe(1);
    expect(err).toContain('skipped: unknown model "claude-imaginary-9"');
    expect(out).toContain("0 sessions, 0 calls (1 skipped)");
  });

  it("gives everything as JSON, each session's bill error included", async () => {
    const { out } = await run([join(dir, "runs"), "--json"]);
    const doc = JSON.parse(out);
    expect(doc.mode).toBe("cache_aware");
    expect(doc.sessions).toHaveLength(6);
    for (const s of doc.sessions) if (s.check !== null) expect(Math.abs(s.check.error_pct)).toBeLessThan(0.01);
    expect(doc.summary.policies.map((p: { name: string }) => p.name)).toContain("gate_cache_aware");
    expect(doc.issues).toHaveLength(1);
  });

  it("prints the priors in the learner's import shape", async () => {
    const { out } = await run([join(dir, "runs"), "--priors"]);
    const doc = JSON.parse(out);
    expect(doc).toMatchObject({ version: 1, source: "replay" });
    const read = doc.tools.Read;
    expect(Object.keys(read.sums).sort()).toEqual([
      "h_n",
      "h_sum",
      "h_sumsq",
      "p_n",
      "p_r",
      "q_cached",
      "q_n",
      "q_turns",
    ]);
    expect(Object.keys(read.bands).sort()).toEqual(["2k-10k", "ge10k"]);
    expect(read.sums.p_r).toBeLessThanOrEqual(read.sums.p_n);
  });

  it("writes a self-contained HTML page with the chart", async () => {
    const file = join(dir, "replay.html");
    await run([join(dir, "runs"), "--html", file]);
    const html = readFileSync(file, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    expect(html).toContain('data-policy="gate_cache_aware"');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it("prices without a cache in seed mode, where the ranking of the rolling mask turns around", async () => {
    const cached = JSON.parse((await run([join(dir, "runs", "claude"), "--json"])).out).summary.policies;
    const seed = JSON.parse((await run([join(dir, "runs", "claude"), "--json", "--mode", "seed"])).out).summary
      .policies;
    const mask = (list: { name: string; saving_usd: [number, number] }[]) =>
      list.find((p) => p.name === "mask_last_10")!.saving_usd[1];
    expect(mask(cached)).toBeLessThan(0);
    expect(mask(seed)).toBeGreaterThan(0);
  });

  it("refuses a bad option with the usage", async () => {
    expect((await run([])).code).toBe(2);
    expect((await run([dir, "--mode", "nope"])).err).toContain("--mode must be cache_aware or seed");
  });
});
