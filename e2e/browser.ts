/**
 * @module e2e/browser
 *
 * One Chromium for a test file, and a fresh page per test that records what
 * the page fetched from outside the local server and what it logged as an
 * error. Every browser test launches it the same way, so the flags CI needs
 * are in one place.
 *
 * @example
 * import { page, problems, useBrowser } from "./browser";
 * useBrowser(); // registers the file's hooks
 * it("loads", async () => { await page.goto(BASE_URL); expect(problems).toEqual([]); });
 */
import { mkdirSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { BASE_URL } from "./server";

/** Debian's chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** The flags CI needs: no sandbox (root in a container), no network chatter of the browser's own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Where screenshots go (git-ignored). */
export const ARTIFACTS = "test-results";

/** The browser, launched by `launchBrowser` or `useBrowser`. */
export let browser: Browser;
/** This test's page (ES module bindings are live: importers see each new page). */
export let page: Page;
/** Requests this test's page made to anywhere but the local server. */
export let outside: string[] = [];
/** Console errors and uncaught exceptions of this test's page. */
export let problems: string[] = [];

/**
 * Launches Chromium with CI's flags.
 *
 * @example
 * const browser = await launchBrowser();
 */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

/**
 * Registers the file's hooks: one browser for the file, a fresh page of this
 * viewport per test, watched for outside requests and errors.
 *
 * @example
 * useBrowser({ width: 1400, height: 900 });
 */
export function useBrowser(viewport = { width: 1360, height: 900 }): void {
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
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
}
