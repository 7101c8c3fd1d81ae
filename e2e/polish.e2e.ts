import { describe, expect, it } from "vitest";
import { ARTIFACTS, page, useBrowser } from "./browser";
import { BASE_URL } from "./server";

// The console's finish, at a laptop's 1,400 px: the wide table, money, the
// savings panel before it has data, the aliases table, and /docs.
useBrowser({ width: 1400, height: 900 });

const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;

describe("the console at 1,400 px", () => {
  it("keeps the pricing table inside its card, the model column in view, with a cue while more columns are off-screen", async () => {
    await page.goto(`${BASE_URL}/`);
    const scroller = page.locator("#pricing-scroll");
    const card = await box("#pricing");
    const region = await box("#pricing-scroll");
    expect(region.x + region.width).toBeLessThanOrEqual(card.x + card.width + 0.5);
    const wide = await scroller.evaluate((node) => node.scrollWidth > node.clientWidth + 1);
    expect(wide).toBe(true);
    expect(await page.locator("#pricing-cue").isVisible()).toBe(true);
    await page.screenshot({ path: `${ARTIFACTS}/console-1400.png` });
    await scroller.evaluate((node) => node.scrollTo({ left: node.scrollWidth }));
    await expect.poll(() => page.locator("#pricing-cue").isVisible()).toBe(false);
    const model = await box('#pricing-table tr[data-model="gpt-5"] th');
    expect(Math.abs(model.x - region.x)).toBeLessThanOrEqual(2);
    expect(await page.locator('#pricing-table tr[data-model="gpt-5"] th').isVisible()).toBe(true);
    await page.locator("#pricing").screenshot({ path: `${ARTIFACTS}/console-1400-scrolled.png` });
  });

  it("shows money at one precision: four decimals, in the decision, its terms, the plan and the savings", async () => {
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#terms [data-term]").count()).toBeGreaterThan(3);
    await expect.poll(() => page.getByTestId("plan-decision").textContent()).toMatch(/^Stub/);
    await page.locator("#s-load").click();
    await expect.poll(() => page.locator("#savings-tiles dd").count()).toBeGreaterThan(4);
    const text = (
      await Promise.all(
        ["#decision", "#terms", "#plan-decision", "#plan-candidates", "#savings-tiles"].map((s) =>
          page.locator(s).innerText(),
        ),
      )
    ).join("\n");
    const decimals = [...text.matchAll(/\$\d[\d,]*(?:\.(\d+))?/g)].map((match) => match[1]?.length ?? 0);
    expect(decimals.length).toBeGreaterThan(8);
    expect(new Set(decimals)).toEqual(new Set([4]));
  });

  it("fills the verdict box and says in words what an empty ledger lacks", async () => {
    await page.goto(`${BASE_URL}/`);
    expect((await page.getByTestId("savings-verdict").textContent())?.trim()).not.toBe("");
    await page.locator("#s-load").click();
    await expect.poll(() => page.locator("#savings-tiles dd").count()).toBeGreaterThan(4);
    expect(await page.locator("#savings-interval text").count()).toBeGreaterThan(0);
    const gap = page.locator("#savings-tiles div", { hasText: "realized − predicted" });
    expect(await gap.innerText()).not.toContain("(—)");
    expect(await gap.locator("dd").innerText()).toMatch(/[a-z]{3,}/);
    await page.locator("#savings").screenshot({ path: `${ARTIFACTS}/console-savings.png` });
  });

  it("styles the aliases table as the pricing table is", async () => {
    await page.goto(`${BASE_URL}/`);
    const head = page.locator("table.aliases thead th").first();
    const style = await head.evaluate((node) => {
      const css = getComputedStyle(node);
      return { background: css.backgroundColor, padding: css.paddingLeft, transform: css.textTransform };
    });
    expect(style).toEqual({ background: "rgb(238, 242, 248)", padding: "10px", transform: "uppercase" });
    await page.locator("#aliases").screenshot({ path: `${ARTIFACTS}/console-aliases.png` });
  });
});

describe("Swagger UI at GET /docs", () => {
  it("lists each route once", async () => {
    await page.goto(`${BASE_URL}/docs`);
    await expect
      .poll(() => page.locator(".opblock-summary-path").allTextContents(), { timeout: 30_000 })
      .toContain("/v1/gate");
    const paths = await page
      .locator(".opblock")
      .evaluateAll((nodes) =>
        nodes.map(
          (n) =>
            `${n.querySelector(".opblock-summary-method")?.textContent} ${n.querySelector(".opblock-summary-path")?.textContent}`,
        ),
      );
    expect(paths.filter((p) => p === "GET /v1/admin/savings")).toHaveLength(1);
    expect(paths.length).toBe(new Set(paths).size);
  });
});
