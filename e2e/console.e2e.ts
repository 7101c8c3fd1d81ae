import { mkdirSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, BASE_URL, PENDING_MODEL } from "./server";

/** Debian's chromium, with the flags CI needs (no sandbox, no network chatter). */
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];
const ARTIFACTS = "test-results";

let browser: Browser;
let page: Page;
let outside: string[];
let problems: string[];
const calc = () => page.locator("#calc-form");

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
});
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1 });
  page = await context.newPage();
  outside = [];
  problems = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(BASE_URL) && !request.url().startsWith("data:")) outside.push(request.url());
  });
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
});
afterEach(async () => {
  await page?.context().close();
});

/** The seed formula the gate's core uses, for checking the chart's numbers independently. */
function seedNet(input: number, output: number, horizon: number, tokens: number, p: number): number {
  const inRate = input / 1e6;
  const outRate = output / 1e6;
  return tokens * inRate * horizon - (200 * inRate * horizon + p * (2000 * inRate + 500 * outRate));
}

/** Fills calculator fields by their exact labels; the others keep what they hold. */
async function fillCalculator(fields: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(fields)) await calc().getByLabel(label, { exact: true }).fill(value);
}

/** POST /v1/gate from the test itself, for the numbers the page must show. */
async function askGate(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await fetch(`${BASE_URL}/v1/gate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/** How many decisions the ledger holds for the default tenant, as GET /v1/savings counts them. */
async function ledgerDecisions(): Promise<number> {
  const res = await fetch(`${BASE_URL}/v1/savings`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { decisions: number }).decisions;
}

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

describe("the price sync's pending changes in the console", () => {
  it("lists a proposal, offers Approve once unlocked, and applies it through the admin API", async () => {
    await page.goto(`${BASE_URL}/`);
    const line = page.locator(`#pending tr[data-model="${PENDING_MODEL}"]`);
    expect(await line.textContent()).toContain("input 2.5 → 2.25");
    const approve = page.getByRole("button", { name: `Approve ${PENDING_MODEL}` });
    expect(await approve.isHidden()).toBe(true);

    await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Unlock editing" }).click();
    await expect.poll(() => approve.isVisible()).toBe(true);
    const listed = await (
      await fetch(`${BASE_URL}/v1/admin/pending`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).json();
    const listedDigest = listed.changes.find((change: { model: string }) => change.model === PENDING_MODEL).digest;
    const post = page.waitForRequest(
      (request) => request.method() === "POST" && request.url().includes("/v1/admin/pending/"),
    );
    await approve.click();
    const request = await post;
    expect(request.url()).toBe(`${BASE_URL}/v1/admin/pending/${PENDING_MODEL}/approve`);
    expect(request.headers()["authorization"]).toBe(`Bearer ${ADMIN_TOKEN}`);
    // It sends the digest of the change the page shows, as the admin API lists it.
    expect(JSON.parse(request.postData() ?? "{}")).toEqual({ digest: listedDigest });
    await expect.poll(() => page.locator("#pending-status").textContent()).toBe(`Approved ${PENDING_MODEL}.`);
    expect(await page.locator(`#pending tr[data-model="${PENDING_MODEL}"]`).count()).toBe(0);
    const row = page.locator(`#pricing-table tr[data-model="${PENDING_MODEL}"]`);
    expect(await row.locator("td").first().textContent()).toBe("$2.25");
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
  });
});

describe("the console's side of the admin API contract", () => {
  // The admin API may live on another branch or deployment: here the test
  // answers for it, and checks what the page sends and how it reads replies.
  it("unlocks with the keyboard, sends PUT with the bearer token and shows the API's warnings", async () => {
    let sent: { method: string; url: string; auth: string | undefined; body: unknown } | undefined;
    await page.route(`${BASE_URL}/v1/admin/pricing`, (route) => route.fulfill({ status: 200, json: { rows: [] } }));
    await page.route(`${BASE_URL}/v1/admin/pricing/*`, (route) => {
      const request = route.request();
      sent = {
        method: request.method(),
        url: request.url(),
        auth: request.headers()["authorization"],
        body: request.postDataJSON(),
      };
      return route.fulfill({ status: 200, json: { warnings: ["cache_read is not 10% of input"] } });
    });
    await page.goto(`${BASE_URL}/`);
    await page.getByLabel("Admin token").fill("a-token");
    await page.keyboard.press("Enter");
    const edit = page.getByRole("button", { name: "Edit broken-model" });
    await expect.poll(() => edit.isVisible()).toBe(true);

    await edit.focus();
    await page.keyboard.press("Enter");
    const json = page.getByLabel("Row (JSON, USD per million tokens)");
    // The corrupt row opens as stored, so it can be fixed.
    expect(JSON.parse(await json.inputValue())).toEqual({ input: -1, output: 4 });
    await page.keyboard.press("Escape");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("Edit broken-model");

    await edit.click();
    await json.fill('{"input": 1, "output": 4}');
    await page.getByRole("button", { name: /^Save/ }).click();
    await expect
      .poll(() => page.locator("#admin-status").textContent())
      .toBe("Saved broken-model. Warnings: cache_read is not 10% of input");
    expect(sent).toEqual({
      method: "PUT",
      url: `${BASE_URL}/v1/admin/pricing/broken-model`,
      auth: "Bearer a-token",
      body: { input: 1, output: 4 },
    });
    expect(problems).toEqual([]);
  });

  it("shows the API's refusal, naming the field, and keeps the editor open", async () => {
    await page.route(`${BASE_URL}/v1/admin/pricing`, (route) => route.fulfill({ status: 200, json: { rows: [] } }));
    await page.route(`${BASE_URL}/v1/admin/pricing/*`, (route) =>
      route.fulfill({
        status: 400,
        json: {
          error: {
            code: "invalid_request",
            message: "input must not be negative",
            issues: [{ path: "input", message: "must not be negative" }],
          },
        },
      }),
    );
    await page.goto(`${BASE_URL}/`);
    await page.getByLabel("Admin token").fill("a-token");
    await page.getByRole("button", { name: "Unlock editing" }).click();
    await page.getByRole("button", { name: "Edit broken-model" }).click();
    await page.getByRole("button", { name: /^Save/ }).click();
    await expect
      .poll(() => page.locator("#edit-status").textContent())
      .toBe("Not saved — invalid_request: input: must not be negative");
    expect(await page.locator("#edit-dialog").getAttribute("open")).not.toBeNull();
  });

  it("stays read-only when the admin API refuses the token", async () => {
    await page.route(`${BASE_URL}/v1/admin/pricing`, (route) =>
      route.fulfill({ status: 401, json: { error: { code: "unauthorized", message: "bad token", issues: [] } } }),
    );
    await page.goto(`${BASE_URL}/`);
    await page.getByLabel("Admin token").fill("wrong");
    await page.getByRole("button", { name: "Unlock editing" }).click();
    await expect.poll(() => page.locator("#admin-status").textContent()).toBe("The admin API refused this token.");
    expect(await page.getByRole("button", { name: "Edit broken-model" }).isHidden()).toBe(true);
  });
});

describe("Swagger UI at GET /docs", () => {
  it("renders the API from /openapi.json with nothing fetched from outside", async () => {
    await page.goto(`${BASE_URL}/docs`);
    await expect
      .poll(() => page.locator(".opblock-summary-path").allTextContents(), { timeout: 30_000 })
      .toContain("/v1/gate");
    expect(await page.locator(".info .title").textContent()).toContain("offload-gate");
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}/docs.png` });
  });
});

describe("the console's clearing-plan view", () => {
  const plan = () => page.locator("#plan-form");
  const bar = (name: string) => page.getByTestId(name);

  it("plans worked example P1 on load: stubs all three outputs and marks where the cached prefix breaks", async () => {
    await page.goto(`${BASE_URL}/`);
    const decision = page.getByTestId("plan-decision");
    await expect.poll(() => decision.textContent()).toBe("Stub c1, c2, c3: saves $0.1777 (plan_positive)");
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
    expect(alone).toEqual(["−$0.1589", "−$0.1933", "$0.1055"]);
    expect(await page.locator("#plan-reason").textContent()).toMatch(/^stub 3 of 3 candidates: net=\$0\.1777/);
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
