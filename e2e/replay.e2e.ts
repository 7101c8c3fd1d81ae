import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../scripts/replay/cli";
import { claudeCodeSession, codexRollout, miniSweAgentTraj } from "../test/replay/fixtures";
import { launchBrowser } from "./browser";
import { BASE_URL } from "./server";

const POLICIES = [
  "keep_everything",
  "gate_seed",
  "gate_cache_aware",
  "gate_plan",
  "clear_tool_uses",
  "mask_last_10",
  "mask_last_10_every_10",
  "size_only",
  "deepagents_evict",
  "claude_code_persist",
  "headroom_net_cost",
  "frozen_compaction",
];
const story = { turns: 24, outputChars: (k: number) => (k % 4 === 0 ? 60_000 : 6_000) };

let browser: Browser;
const dir = mkdtempSync(join(tmpdir(), "offload-gate-replay-e2e-"));

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync(join(dir, "runs"), { recursive: true });
  writeFileSync(join(dir, "runs", "cc.jsonl"), claudeCodeSession(story));
  writeFileSync(join(dir, "runs", "rollout-1.jsonl"), codexRollout(story));
  writeFileSync(join(dir, "runs", "b.traj.json"), miniSweAgentTraj(story));
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("replay in the browser", () => {
  it("opens the --html page: a chart line per policy and the policy table, nothing fetched", async () => {
    const file = join(dir, "replay.html");
    const code = await main([join(dir, "runs"), "--html", file], { out: () => {}, err: () => {}, tty: false });
    expect(code).toBe(0);
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(`file://${file}`);
    expect(
      await page
        .locator("svg.replay-chart path[data-policy]")
        .evaluateAll((paths) => paths.map((p) => p.getAttribute("data-policy"))),
    ).toEqual(POLICIES);
    expect(await page.locator("#policies tbody tr td:first-child").allTextContents()).toEqual(POLICIES);
    expect(await page.locator("#sessions tbody tr").count()).toBe(3);
    expect(requests).toEqual([`file://${file}`]);
    await page.close();
  });

  it("replays a dropped file on the console's page, asking nothing but the page and its script", async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => (m.type() === "error" ? problems.push(m.text()) : undefined));
    await page.goto(`${BASE_URL}/console/replay`);
    await page.locator("#replay-file").setInputFiles({
      name: "cc.jsonl",
      mimeType: "application/jsonl",
      buffer: Buffer.from(claudeCodeSession(story)),
    });
    await page.locator("#policies").waitFor();
    expect(await page.locator("#replay-status").textContent()).toMatch(
      /^cc\.jsonl: claude-code, 24 calls, replayed in \d+ ms/,
    );
    expect(await page.locator("#policies tbody tr td:first-child").allTextContents()).toEqual(POLICIES);
    expect(await page.locator("svg.replay-chart path[data-policy]").count()).toBe(POLICIES.length);
    // The page's check against the recorded bill, as the CLI prints it.
    expect(await page.locator("#replay-report p").nth(1).textContent()).toMatch(/error [+−]?0\.00\d%/);
    expect(requests).toEqual([`${BASE_URL}/console/replay`, `${BASE_URL}/console/assets/replay.js`]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("reports a file that is no transcript, by name, with what it expected", async () => {
    const page = await browser.newPage();
    await page.goto(`${BASE_URL}/console/replay`);
    await page
      .locator("#replay-file")
      .setInputFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from('{"x":1}') });
    await expect.poll(() => page.locator("#replay-status").textContent()).toBe("notes.json: nothing to replay");
    expect(await page.locator("#replay-issues").textContent()).toMatch(/^notes\.json: expected a Claude Code session/);
    await page.close();
  });
});
