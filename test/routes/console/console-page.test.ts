import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CACHE_TTLS, OFFLOAD_AT, PRICING_MODES } from "../../../src/gate";
import { call, putRow } from "../../support/helpers";
import { consolePage, withConsoleRow } from "../../support/console-page";

// GET /: the console's forms and the page's own safety (the pricing table and its data: console.test.ts).

beforeEach(withConsoleRow);
afterEach(() => {
  vi.restoreAllMocks();
});

const page = consolePage;

describe("GET /, its forms and its safety", () => {
  it("labels every input, select and textarea", async () => {
    const { html } = await page();
    const controls = [...html.matchAll(/<(input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((match) => match[2]);
    expect(controls.length).toBeGreaterThanOrEqual(10);
    const labelled = new Set([...html.matchAll(/<label\b[^>]*\bfor="([^"]+)"/g)].map((match) => match[1]));
    expect(controls.filter((id) => !labelled.has(id))).toEqual([]);
    expect([...html.matchAll(/<(?:input|select|textarea)\b(?![^>]*\bid=)[^>]*>/g)]).toEqual([]);
  });

  it("offers every pricing mode the gate takes, the config's default selected, the cache-aware fields hidden", async () => {
    await env.PRICING.put("config:gate", JSON.stringify({ pricing_mode: "cache_aware" }));
    const { html } = await page();
    const select = html.match(/<select id="f-mode"[^>]*>([\s\S]*?)<\/select>/)?.[1] ?? "";
    const options = [...select.matchAll(/<option value="([^"]+)"/g)].map((match) => match[1]);
    expect(options).toEqual(PRICING_MODES);
    expect(select).toMatch(
      /<option value="cache_aware" selected="">cache_aware \(the config&#39;s default\)<\/option>/,
    );
    expect(html).toMatch(/<fieldset id="cache-fields"[^>]*hidden/);
  });

  it("gives the page the rows to edit and no prices to compute with: the numbers come from the API", async () => {
    const { html } = await page();
    const data = JSON.parse(
      html.match(/<script type="application\/json" id="console-data">([\s\S]*?)<\/script>/)?.[1] ?? "{}",
    );
    expect(Object.keys(data)).toEqual(["rows"]);
    expect(data.rows["claude-opus-4-6"]).toMatchObject({ input: 5, output: 25 });
  });

  it("offers placement, TTL and a q range in cache_aware mode, and horizon and p_recall ranges in both", async () => {
    const { html } = await page();
    const cacheFields = html.match(/<fieldset id="cache-fields"[\s\S]*?<\/fieldset>/)?.[0] ?? "";
    for (const id of ["f-offload", "f-suffix", "f-ttl", "f-q-lo", "f-q-hi"])
      expect(cacheFields).toContain(`id="${id}"`);
    expect(cacheFields).toMatch(/<input id="f-suffix"[^>]*disabled/);
    const options = (id: string) =>
      [
        ...(html.match(new RegExp(`<select id="${id}"[\\s\\S]*?</select>`))?.[0] ?? "").matchAll(/value="([^"]+)"/g),
      ].map((m) => m[1]);
    expect(options("f-offload")).toEqual([...OFFLOAD_AT]);
    expect(options("f-ttl")).toEqual([...CACHE_TTLS]);
    const ranges = html.match(/<fieldset id="range-fields"[\s\S]*?<\/fieldset>/)?.[0] ?? "";
    expect(ranges).not.toMatch(/<fieldset id="range-fields"[^>]*hidden/);
    for (const id of ["f-h-lo", "f-h-hi", "f-p-lo", "f-p-hi"]) expect(ranges).toContain(`id="${id}"`);
  });

  it("sets a strict Content-Security-Policy whose nonce is on its one style and one script", async () => {
    const { res, html } = await page();
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = csp.match(/script-src 'nonce-([^']+)'/)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/=]{16,}$/);
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(html.match(/<script nonce="/g)).toHaveLength(1);
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).not.toMatch(/\sstyle="/);
    // A second request gets a fresh nonce.
    const again = (await call("/")).headers.get("content-security-policy");
    expect(again).not.toBe(csp);
  });

  it("loads nothing from outside the worker", async () => {
    const { html } = await page();
    expect(html).not.toMatch(/<(script|img|iframe)[^>]*\ssrc=/);
    expect(html).not.toMatch(/<link[^>]*href="(?!data:)/);
    expect(html).not.toMatch(/@import|url\(\s*["']?https?:/);
  });

  it("cannot be broken out of by a row's text", async () => {
    await putRow("sneaky-model", {
      input: 1,
      output: 2,
      source: "https://example.test/</script><script>alert(1)</script>",
    });
    const { html } = await page();
    expect(html).not.toContain("<script>alert(1)");
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it("answers HEAD without a body and 405 to other methods", async () => {
    const head = await call("/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await call("/", { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});
