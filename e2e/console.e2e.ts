import { describe, expect, it } from "vitest";
import { ARTIFACTS, outside, page, problems, useBrowser } from "./browser";
import { askGate, calc, ledgerDecisions } from "./console-support";
import { ADMIN_TOKEN, BASE_URL } from "./server";

useBrowser();

describe("the ops console at GET /", () => {
  it("records nothing in the ledger, however often it is viewed and used", async () => {
    const before = await ledgerDecisions();
    for (let view = 0; view < 3; view++) {
      await page.goto(`${BASE_URL}/`);
      // Each view asks the gate and plans worked example P1 on load.
      await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
      await expect.poll(() => page.getByTestId("plan-decision").textContent()).toMatch(/^Stub c1, c2, c3/);
    }
    await page.getByRole("button", { name: "Ask the gate" }).click();
    await page.getByRole("button", { name: "Plan", exact: true }).click();
    await expect.poll(() => page.locator("#calc-status").textContent()).toBe("");
    await expect.poll(() => page.locator("#plan-status").textContent()).not.toBe("Planning…");
    // One recorded decision after the views: once its write lands, any write of theirs would have too.
    await askGate({ model_name: "claude-opus-4-6", output_tokens: 20_000 });
    await expect.poll(ledgerDecisions, { timeout: 15_000 }).toBeGreaterThan(before);
    expect(await ledgerDecisions()).toBe(before + 1);
    expect(problems).toEqual([]);
  });

  it("renders the pricing table with aliases, sources, ages and warnings", async () => {
    await page.goto(`${BASE_URL}/`);
    const opus = page.locator('#pricing-table tr[data-model="claude-opus-4-5"]');
    await expect.poll(() => opus.count()).toBe(1);
    expect(await opus.textContent()).toContain("claude-opus-4-5-20251101");
    expect(await opus.locator("a.source").textContent()).toBe("platform.claude.com");

    const legacy = page.locator('#pricing-table tr[data-model="legacy-model-2025"]');
    expect(await legacy.getAttribute("class")).toContain("stale");
    expect(await legacy.locator(".badge.warn").textContent()).toMatch(/⚠ \d+ days old/);
    expect(await legacy.textContent()).toContain("legacy-2025-01");

    const broken = page.locator('#pricing-table tr[data-model="broken-model"]');
    expect(await broken.locator(".badge.bad").textContent()).toBe("invalid");
    expect(await broken.textContent()).toContain("input: must not be negative");

    expect(await page.locator("#config").textContent()).toContain("expected_conversation_depth");
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("fits a phone-width screen without sideways scrolling, the wide table scrolling on its own", async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(420);
    await page.screenshot({ path: `${ARTIFACTS}/console-narrow.png`, fullPage: true });
  });

  it("reads the savings panel from the outcomes ledger: an agent's decisions, predicted net, the holdout's verdict", async () => {
    // An agent's decision (the console's own are dry runs); it is in the ledger once its write lands.
    await askGate({ model_name: "claude-opus-4-6", output_tokens: 20_000, tool_name: "web.fetch" });
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
    // Load asks again until the write has landed.
    const status = page.locator("#savings-status");
    await expect
      .poll(
        async () => {
          await page.locator("#s-load").click();
          await expect.poll(() => status.textContent()).not.toBe("Reading the ledger…");
          return Number((await page.locator("#savings-tiles dd").first().textContent())?.replace(/,/g, "") ?? 0);
        },
        { timeout: 15_000 },
      )
      .toBeGreaterThan(0);
    expect(await status.textContent()).toMatch(/^Tenant default, .* per (minute|hour)\.$/);
    expect(await page.locator("#savings-priors tbody tr").count()).toBe(3);
    // No session bills yet: one row saying so, no interval, so no verdict but inconclusive.
    expect(await page.locator("#savings-tools tbody tr").count()).toBe(1);
    expect(await page.getByTestId("savings-verdict").textContent()).toMatch(/^Verdict: inconclusive/);
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("names the wrong field when the gate refuses the input", async () => {
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
    await calc().getByLabel("Recall probability").fill("1.5");
    await page.getByRole("button", { name: "Ask the gate" }).click();
    await expect
      .poll(() => page.locator("#calc-status").textContent())
      .toContain("invalid_request: recall_probability: must be between 0 and 1");
  });

  it("sends the gate key as a bearer token when one is given", async () => {
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
    await page.getByText("More inputs").click();
    await calc().getByLabel("Gate key").fill("agents-prod-key");
    const gate = page.waitForRequest((r) => r.url() === `${BASE_URL}/v1/gate`);
    const curve = page.waitForRequest((r) => r.url() === `${BASE_URL}/v1/gate/curve`);
    await page.getByRole("button", { name: "Ask the gate" }).click();
    expect((await gate).headers()["authorization"]).toBe("Bearer agents-prod-key");
    expect((await curve).headers()["authorization"]).toBe("Bearer agents-prod-key");
  });

  it("says when no row can price the model, and draws nothing", async () => {
    await page.goto(`${BASE_URL}/`);
    await calc().getByLabel("Model", { exact: true }).fill("mystery-model-9");
    await page.getByRole("button", { name: "Ask the gate" }).click();
    await expect.poll(() => page.getByTestId("decision").textContent()).toBe("Don't fire — keep the output (unpriced)");
    expect(await page.locator("#chart-horizon").textContent()).toContain("No pricing row for mystery-model-9");
  });

  it("stays read-only until an admin token is accepted, then edits through the admin API", async () => {
    await page.goto(`${BASE_URL}/`);
    const edit = page.getByRole("button", { name: "Edit legacy-model-2025" });
    expect(await edit.isHidden()).toBe(true);

    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Unlock editing" }).click();
    await expect.poll(() => edit.isVisible()).toBe(true);
    await edit.click();
    const json = page.getByLabel("Row (JSON, USD per million tokens)");
    const row = JSON.parse(await json.inputValue());
    expect(row).toMatchObject({ input: 2, output: 8 });
    await json.fill(JSON.stringify({ ...row, input: 2.5, verified_at: new Date().toISOString().slice(0, 10) }));
    const put = page.waitForRequest((request) => request.method() === "PUT");
    await page.getByRole("button", { name: /^Save/ }).click();
    const request = await put;
    expect(request.url()).toBe(`${BASE_URL}/v1/admin/pricing/legacy-model-2025`);
    expect(request.headers()["authorization"]).toBe(`Bearer ${ADMIN_TOKEN}`);
    await expect.poll(() => page.locator("#admin-status").textContent()).toMatch(/^Saved legacy-model-2025\./);
    const refreshed = page.locator('#pricing-table tr[data-model="legacy-model-2025"]');
    expect(await refreshed.locator("td").first().textContent()).toBe("$2.50");
    expect((await refreshed.getAttribute("class")) ?? "").not.toContain("stale");
  });
});
