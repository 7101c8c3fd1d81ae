import { describe, expect, it } from "vitest";
import { ARTIFACTS, outside, page, problems, useBrowser } from "./browser";
import { askGate, calc, fillCalculator, seedNet } from "./console-support";
import { BASE_URL } from "./server";

useBrowser();

describe("the ops console's calculator", () => {
  it("asks the gate from the calculator and draws both curves with their break-even points", async () => {
    await page.goto(`${BASE_URL}/`);
    // The page asks once on load, so the chart is there without any input.
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);

    await calc().getByLabel("Model", { exact: true }).fill("claude-sonnet-4-6");
    await calc().getByLabel("Output size", { exact: true }).fill("30000");
    await calc().getByLabel("Horizon (turns)").fill("3");
    await calc().getByLabel("Recall probability").fill("0.4");
    // Keyboard only: focus the button and press Enter.
    await page.locator("#calc-submit").focus();
    await page.keyboard.press("Enter");

    const decision = page.getByTestId("decision");
    await expect.poll(() => decision.textContent()).toMatch(/^Fire — stub it: saves \$0\.2[0-9]+ \(net_positive\)$/);
    const expected = seedNet(3, 15, 3, 30_000, 0.4);
    expect(await page.locator("#reason").textContent()).toBe(
      `net=$${expected.toFixed(4)} (saving=$0.2700 − stub=$0.0018 − recall=$0.0054); H=3 p_recall=0.40 model=claude-sonnet-4-6`,
    );
    for (const term of [
      "reprefill_saving_usd",
      "stub_carry_cost_usd",
      "expected_recall_hop_cost_usd",
      "net_saving_usd",
    ]) {
      expect(await page.locator(`#terms [data-term="${term}"]`).count()).toBe(1);
    }

    // The charts are the API's: the marked point is the gate's own answer, bit for bit,
    // and the break-even marks are the gate's integer break-evens shown in the terms.
    const gate = await askGate({
      model_name: "claude-sonnet-4-6",
      output_tokens: 30_000,
      horizon: 3,
      recall_probability: 0.4,
      pricing_mode: "seed",
    });
    expect(gate.net_saving_usd).toBeCloseTo(expected, 12);
    const horizon = page.locator("#chart-horizon");
    expect(await horizon.locator("circle.pt").count()).toBeGreaterThanOrEqual(9);
    expect(Number(await horizon.getByTestId("here").getAttribute("data-net"))).toBe(gate.net_saving_usd);
    expect(Number(await horizon.getByTestId("break-even").getAttribute("data-x"))).toBe(gate.break_even_horizon);
    expect(await horizon.getByTestId("break-even").textContent()).toContain(
      `fires from H = ${gate.break_even_horizon}`,
    );
    expect(await page.locator('#terms [data-term="break_even_horizon"]').textContent()).toBe(
      String(gate.break_even_horizon),
    );
    expect(await horizon.getByTestId("zero-line").count()).toBe(1);

    const tokens = page.locator("#chart-tokens");
    const tokenPoints = await tokens.locator("circle.pt").count();
    expect(tokenPoints).toBeGreaterThanOrEqual(41);
    expect(tokenPoints).toBeLessThanOrEqual(45);
    expect(Number(await tokens.getByTestId("here").getAttribute("data-net"))).toBe(gate.net_saving_usd);
    expect(Number(await tokens.getByTestId("break-even").getAttribute("data-x"))).toBe(gate.break_even_output_tokens);
    expect(await tokens.getByTestId("prefilter").count()).toBe(1);
    // Below the pre-filter the gate answers no-fire at zero, and the chart shows that, not a formula.
    const below = tokens.locator('circle.pt[data-reason="below_threshold"]');
    expect(await below.count()).toBeGreaterThan(0);
    expect(new Set(await below.evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-net"))))).toEqual(
      new Set(["0"]),
    );
    // Points on each side of zero are drawn differently, and the curve does cross it.
    expect(await tokens.locator("circle.pt.neg").count()).toBeGreaterThan(0);
    expect(await tokens.locator('circle.pt[data-fire="true"]').count()).toBeGreaterThan(0);

    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/console.png`, fullPage: true });
  });

  it("draws the cache-aware curve in cache_aware mode: its marked point is the gate's net_saving_usd", async () => {
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
    // Design note, example 2: the seed fires here; the cache-aware gate waits until H = 3.
    await calc().getByLabel("Model", { exact: true }).fill("claude-opus-4-6");
    await calc().getByLabel("Output size", { exact: true }).fill("12000");
    await calc().getByLabel("Horizon (turns)").fill("2");
    await calc().getByLabel("Recall probability").fill("0.5");
    await calc().getByLabel("Pricing mode").selectOption("cache_aware");
    await calc().getByLabel("Context tokens").fill("150000");
    await page.getByRole("button", { name: "Ask the gate" }).click();
    await expect
      .poll(() => page.getByTestId("decision").textContent())
      .toBe("Don't fire — keep the output (net_not_positive)");

    const request = {
      model_name: "claude-opus-4-6",
      output_tokens: 12_000,
      horizon: 2,
      recall_probability: 0.5,
      pricing_mode: "cache_aware",
      context_tokens: 150_000,
    };
    const gate = await askGate(request);
    const seed = await askGate({ ...request, pricing_mode: "seed", context_tokens: undefined });
    expect(gate.break_even_horizon).toBe(3);
    expect(seed.fire).toBe(true);

    const horizon = page.locator("#chart-horizon");
    await expect
      .poll(async () => Number(await horizon.getByTestId("here").getAttribute("data-net")))
      .toBe(gate.net_saving_usd);
    expect(gate.net_saving_usd).not.toBe(seed.net_saving_usd);
    expect(await horizon.getByTestId("here").getAttribute("data-x")).toBe("2");
    // The chart's break-even is the API's integer one, and the curve turns there.
    expect(Number(await horizon.getByTestId("break-even").getAttribute("data-x"))).toBe(gate.break_even_horizon);
    expect(await page.locator('#terms [data-term="break_even_horizon"]').textContent()).toBe("3");
    expect(await horizon.locator('circle.pt[data-x="2"]').getAttribute("data-fire")).toBe("false");
    expect(await horizon.locator('circle.pt[data-x="3"]').getAttribute("data-fire")).toBe("true");
    // Another chart point is what the gate answers at that horizon, too.
    const at6 = await askGate({ ...request, horizon: 6 });
    expect(Number(await horizon.locator('circle.pt[data-x="6"]').getAttribute("data-net"))).toBe(at6.net_saving_usd);

    const tokens = page.locator("#chart-tokens");
    expect(Number(await tokens.getByTestId("here").getAttribute("data-net"))).toBe(gate.net_saving_usd);
    expect(Number(await tokens.getByTestId("break-even").getAttribute("data-x"))).toBe(gate.break_even_output_tokens);
    expect(await page.locator('#terms [data-term="context_premium_saving_usd"]').count()).toBe(1);
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/console-cache-aware.png`, fullPage: true });
  });

  it("prices a retroactive stub and a range of q, and says which corner stops it (worked examples R1 and B1)", async () => {
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
    // B1: q = 0.9 pays, the corner q = 0.8 of [0.8, 1] does not.
    await calc().getByLabel("Pricing mode").selectOption("cache_aware");
    const b1Fields = { "Cache hit rate": "0.9", "Context tokens": "120000", "q from": "0.8", "q to": "1" };
    await fillCalculator({
      Model: "claude-opus-4-6",
      "Output size": "12000",
      "Horizon (turns)": "2",
      "Recall probability": "0.5",
      ...b1Fields,
    });
    expect(await calc().getByLabel("Cached tokens after it").isDisabled()).toBe(true);
    const sent = page.waitForRequest((r) => r.url() === `${BASE_URL}/v1/gate`);
    await page.getByRole("button", { name: "Ask the gate" }).click();
    const body = JSON.parse((await sent).postData() ?? "{}");
    expect(body).toMatchObject({ offload_at: "entry", cache_ttl: "5m", cache_hit_rate_range: [0.8, 1] });
    expect(body).not.toHaveProperty("suffix_tokens");
    await expect
      .poll(() => page.getByTestId("decision").textContent())
      .toBe("Don't fire — keep the output (worst_case_not_positive)");
    const b1 = await askGate(body);
    expect(b1.worst_case.cache_hit_rate).toBe(0.8);
    expect(await page.locator('#terms [data-term="worst_case"]').textContent()).toBe(
      "−$0.0183 at H 2 · p_recall 0.5 · q 0.8",
    );

    // R1: the same output stubbed after it is cached, with 30,000 cached tokens after it, on the 1-hour cache.
    await calc().getByLabel("Stub placement").selectOption("retroactive");
    const r1Fields = { "q from": "", "q to": "", "Context tokens": "60000", "Cached tokens after it": "30000" };
    await fillCalculator({ "Output size": "20000", "Horizon (turns)": "4", "Recall probability": "0.3", ...r1Fields });
    await calc().getByLabel("Cache TTL").selectOption("1h");
    const again = page.waitForRequest((r) => r.url() === `${BASE_URL}/v1/gate`);
    await page.getByRole("button", { name: "Ask the gate" }).click();
    const r1Body = JSON.parse((await again).postData() ?? "{}");
    expect(r1Body).toMatchObject({ offload_at: "retroactive", suffix_tokens: 30_000, cache_ttl: "1h" });
    expect(r1Body).not.toHaveProperty("cache_hit_rate_range");
    const r1 = await askGate(r1Body);
    expect(r1.fire).toBe(false);
    await expect
      .poll(() => page.getByTestId("decision").textContent())
      .toBe("Don't fire — keep the output (net_not_positive)");
    expect(await page.locator("#reason").textContent()).toBe(r1.reason);
    expect(await page.locator('#terms [data-term="suffix_rewrite_cost_usd"]').count()).toBe(1);
    expect(await page.locator('#terms [data-term="worst_case"]').count()).toBe(0);
    expect(await page.locator("#decision-context").textContent()).toContain(
      "retroactive with 30,000 cached tokens after it · 1h cache",
    );
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("offers every pricing mode, sending cache fields only in cache_aware mode", async () => {
    await page.goto(`${BASE_URL}/`);
    await expect.poll(() => page.locator("#chart-horizon circle.pt").count()).toBeGreaterThan(5);
    const mode = calc().getByLabel("Pricing mode");
    expect(
      await mode.locator("option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
    ).toEqual(["seed", "cache_aware"]);
    const bodies: Record<string, unknown>[] = [];
    page.on("request", (r) => r.url() === `${BASE_URL}/v1/gate` && bodies.push(r.postDataJSON()));
    expect(await calc().getByLabel("Cache hit rate").isHidden()).toBe(true);
    await mode.selectOption("cache_aware");
    await calc().getByLabel("Cache hit rate").fill("0.6");
    await calc().getByLabel("Context tokens").fill("50000");
    await page.getByRole("button", { name: "Ask the gate" }).click();
    await expect.poll(() => bodies.length).toBe(1);
    expect(bodies[0]).toMatchObject({ pricing_mode: "cache_aware", cache_hit_rate: 0.6, context_tokens: 50_000 });
    await expect.poll(() => page.getByTestId("decision").textContent()).not.toContain("Submit");
    await mode.selectOption("seed");
    expect(await calc().getByLabel("Cache hit rate").isHidden()).toBe(true);
    await page.getByRole("button", { name: "Ask the gate" }).click();
    await expect.poll(() => bodies.length).toBe(2);
    expect(bodies[1]).toMatchObject({ pricing_mode: "seed" });
    expect(bodies[1]).not.toHaveProperty("cache_hit_rate");
    expect(bodies[1]).not.toHaveProperty("context_tokens");
    expect(problems).toEqual([]);
  });
});
