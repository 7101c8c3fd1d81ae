import { describe, expect, it } from "vitest";
import { ARTIFACTS, page, problems, useBrowser } from "./browser";
import { BASE_URL } from "./server";

useBrowser();

describe("the console's clearing-plan view", () => {
  const plan = () => page.locator("#plan-form");
  const bar = (name: string) => page.getByTestId(name);

  it("plans worked example P1 on load: stubs all three outputs and marks where the cached prefix breaks", async () => {
    await page.goto(`${BASE_URL}/`);
    const decision = page.getByTestId("plan-decision");
    await expect.poll(() => decision.textContent()).toBe("Stub c1, c2, c3: saves $0.2773 (plan_positive)");
    // The history to scale: seven segments now, the three outputs stubbed.
    expect(await bar("bar-now").locator("rect").count()).toBe(7);
    expect(
      await bar("bar-now")
        .locator('rect[data-kind="stubbed"]')
        .evaluateAll((rects) => rects.map((r) => r.getAttribute("data-id"))),
    ).toEqual(["c1", "c2", "c3"]);
    expect(await bar("bar-after").locator('rect[data-kind="stub"]').count()).toBe(3);
    expect(await bar("plan-break").getAttribute("data-tokens")).toBe("8000");
    expect(await bar("plan-break").textContent()).toBe("cached prefix breaks at 8,000: 7,100 written again");
    expect(await bar("plan-rewritten").getAttribute("data-tokens")).toBe("7100");
    // The break sits 8,000 / 101,500 of the way along the bar.
    const line = bar("plan-break").locator("line");
    expect(Number(await line.getAttribute("x1"))).toBeCloseTo(8 + (8_000 / 101_500) * 784, 6);
    // Alone, two of the three lose money.
    const alone = await page.locator("#plan-candidates tbody tr td:nth-child(4)").allTextContents();
    expect(alone).toEqual(["−$0.1056", "−$0.1480", "$0.1066"]);
    expect(await page.locator("#plan-reason").textContent()).toMatch(/^stub 3 of 3 candidates: net=\$0\.2773/);
    expect(problems).toEqual([]);
    await page.locator("#plan").screenshot({ path: `${ARTIFACTS}/console-plan.png` });
  });

  it("builds a history segment by segment, and keeps everything when no stub pays", async () => {
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.getByTestId("plan-decision").textContent()).toContain("Stub");
    await page.getByRole("button", { name: "Clear" }).click();
    const steps: [string, string, string][] = [
      ["150000", "", ""],
      ["30000", "big", "1"],
      ["2000", "", ""],
    ];
    for (const [tokens, id, p] of steps) {
      await plan().getByLabel("Tokens", { exact: true }).fill(tokens);
      await plan().getByLabel("Tool output id").fill(id);
      await plan().getByLabel("Recall probability").fill(p);
      await page.getByRole("button", { name: "Add to history" }).click();
    }
    expect(JSON.parse(await plan().getByLabel("History (JSON)").inputValue())).toEqual([
      { tokens: 150_000 },
      { id: "big", tokens: 30_000, recall_probability: 1 },
      { tokens: 2_000 },
    ]);
    await plan().getByLabel("Horizon (turns)").fill("1");
    const request = page.waitForRequest((r) => r.url() === `${BASE_URL}/v1/plan`);
    await page.getByRole("button", { name: "Plan", exact: true }).click();
    expect((await request).postDataJSON()).toMatchObject({
      model_name: "claude-opus-4-6",
      horizon: 1,
      cache_ttl: "5m",
    });
    await expect
      .poll(() => page.getByTestId("plan-decision").textContent())
      .toBe("Keep everything: no plan saves money (plan_not_positive)");
    expect(await bar("plan-break").count()).toBe(0);
    expect(await bar("bar-after").locator("rect").count()).toBe(3);
  });

  it("says what is wrong with a history: bad JSON in the page, a bad segment by its path from the API", async () => {
    await page.goto(`${BASE_URL}/`);
    const history = plan().getByLabel("History (JSON)");
    await history.fill("[{tokens: 5}");
    await page.getByRole("button", { name: "Plan", exact: true }).click();
    await expect.poll(() => page.locator("#plan-status").textContent()).toMatch(/^The history is not valid JSON/);
    await history.fill('[{"tokens": 8000}, {"id": "c1", "tokens": -4}]');
    await page.getByRole("button", { name: "Plan", exact: true }).click();
    await expect
      .poll(() => page.locator("#plan-status").textContent())
      .toBe("400: segments.1.tokens must be an integer ≥ 0");
  });
});
