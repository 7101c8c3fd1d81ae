import { describe, expect, it } from "vitest";
import { ARTIFACTS, outside, page, problems, useBrowser } from "./browser";
import { ADMIN_TOKEN, BASE_URL, PENDING_MODEL } from "./server";

useBrowser();

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
