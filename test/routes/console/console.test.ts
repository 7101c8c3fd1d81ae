import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ageInDays, STALE_AFTER_DAYS, toTableRow } from "../../../src/routes/console/data";
import { forgetPricing } from "../../../src/storage/read";
import { call, putRow } from "../../support/helpers";
import { consolePage, daysAgo, withConsoleRow } from "../../support/console-page";
import { ALICE_TOKEN } from "../../support/secrets";

beforeEach(withConsoleRow);
afterEach(() => {
  vi.restoreAllMocks();
});

const page = consolePage;

/** The `<tr>` of one model in the pricing table. */
function rowOf(html: string, model: string): string {
  const match = html.match(new RegExp(`<tr[^>]*data-model="${model.replace(/[.]/g, "\\.")}"[^>]*>[\\s\\S]*?</tr>`));
  expect(match, `row for ${model}`).not.toBeNull();
  return match?.[0] ?? "";
}

describe("GET /", () => {
  it("renders the pricing table with prices, aliases, source and age", async () => {
    const { res, html } = await page();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const row = rowOf(html, "claude-opus-4-6");
    for (const text of [
      "$5.00",
      "$25.00",
      "$0.50",
      "$6.25",
      "$10.00",
      "claude-opus-4-6-20260101",
      "anthropic",
      "platform.claude.com",
      "3 days old",
    ]) {
      expect(row).toContain(text);
    }
    expect(row).not.toContain("badge warn");
  });

  it(`warns on a row verified more than ${STALE_AFTER_DAYS} days ago, and on one never verified`, async () => {
    await putRow("old-model", { input: 1, output: 2, verified_at: daysAgo(STALE_AFTER_DAYS + 30) });
    await putRow("undated-model", { input: 1, output: 2 });
    const { html } = await page();
    const old = rowOf(html, "old-model");
    expect(old).toMatch(/<tr class="stale"/);
    expect(old).toContain(`⚠ ${STALE_AFTER_DAYS + 30} days old`);
    expect(rowOf(html, "undated-model")).toContain("⚠ never verified");
    expect(html).toContain(`1 older than ${STALE_AFTER_DAYS} days`);
  });

  it("flags deprecated and retired rows, with the date and what prices them", async () => {
    await putRow("gemini-2.5-pro", {
      input: 1.25,
      output: 10,
      retires_at: "2999-12-01",
      replaced_by: "gemini-3.8-flash",
    });
    await putRow("claude-3-5-haiku", { input: 0.8, output: 4, deprecated_at: "2025-12-19", retires_at: "2026-02-19" });
    await putRow("o4-mini", { input: 1.1, output: 4.4, retires_at: "2026-10-23", replaced_by: "gpt-5.6-terra" });
    const { html } = await page();
    expect(rowOf(html, "gemini-2.5-pro")).toMatch(/<tr class="deprecated"/);
    expect(rowOf(html, "gemini-2.5-pro")).toContain("retires 2999-12-01; priced as gemini-3.8-flash from then");
    expect(rowOf(html, "claude-3-5-haiku")).toMatch(/<tr class="retired"/);
    expect(rowOf(html, "claude-3-5-haiku")).toContain("retired 2026-02-19; unpriced");
    expect(rowOf(html, "o4-mini")).toContain("retired 2026-10-23; priced as gpt-5.6-terra");
    expect(rowOf(html, "claude-opus-4-6")).not.toContain("lifecycle");
    expect(html).toContain("1 deprecated");
    expect(html).toContain("2 retired");
  });

  it("shows the price sync's pending changes, and says when there are none", async () => {
    expect((await page()).html).toContain("Nothing pending");
    const change = {
      model: "gpt-5",
      kind: "changed",
      status: "pending",
      before: { input: 1.25, output: 10 },
      after: { input: 1.5, output: 10 },
      fields: [{ field: "input", from: 1.25, to: 1.5 }],
      source: "https://prices.example.test/prices.json",
      detected_at: "2026-11-30T06:17:00.000Z",
    };
    await env.PRICING.put("pending:gpt-5", JSON.stringify(change));
    await env.PRICING.put("pending:o3", "{broken");
    // Written straight into KV: the isolate's held listing is dropped, as its TTL would.
    forgetPricing();
    const { html } = await page();
    expect(html).toMatch(
      /<tr data-model="gpt-5" class="pending">[\s\S]*new prices[\s\S]*input 1.25 → 1.5[\s\S]*2026-11-30 06:17[\s\S]*pending/,
    );
    expect(html).toContain("1 waiting for approval");
    expect(html).toContain("1 unreadable");
    // Approve and Reject wait, hidden, for the admin token; a rejected change has neither.
    expect(html).toMatch(
      /<button[^>]*data-decide="approve" data-model="gpt-5" data-digest="[0-9a-f]{64}" hidden[^>]*>/,
    );
    // The buttons carry the digest the admin API lists for this very change, so an approval applies only it.
    const listed = await (
      await call("/v1/admin/pending", { headers: { authorization: `Bearer ${ALICE_TOKEN}` } })
    ).json<any>();
    expect(html).toContain(`data-digest="${listed.changes[0].digest}"`);
    await env.PRICING.put(
      "pending:gpt-5",
      JSON.stringify({
        ...change,
        status: "rejected",
        rejected_by: "ops-bob",
        rejected_at: "2026-11-30T07:00:00.000Z",
      }),
    );
    forgetPricing();
    const after = (await page()).html;
    expect(after).toContain("rejected by ops-bob");
    expect(after).not.toContain('data-decide="approve"');
  });

  it("carries the learning panel, its script reading GET /v1/learning and switching breakers through the admin API", async () => {
    const { html } = await page();
    expect(html).toContain('id="learning"');
    expect(html).toContain("What the gate learned");
    expect(html).toContain('fetch("/v1/learning"');
    expect(html).toContain("/v1/admin/learning/breakers/");
  });

  it("shows a corrupt row as invalid, with the reason, instead of failing", async () => {
    await putRow("broken-json", "{not json");
    await putRow("negative-price", JSON.stringify({ input: -1, output: 2 }));
    await putRow("unknown-field", JSON.stringify({ input: 1, output: 2, inptu: 3 }));
    const { res, html } = await page();
    expect(res.status).toBe(200);
    expect(rowOf(html, "broken-json")).toContain("pricing:broken-json is not valid JSON");
    expect(rowOf(html, "negative-price")).toContain("input: must not be negative");
    expect(rowOf(html, "unknown-field")).toContain("inptu");
    expect(html).toContain("3 invalid");
    expect(rowOf(html, "claude-opus-4-6")).toContain("$25.00");
  });

  it("pages through KV's list until list_complete", async () => {
    const models = Array.from({ length: 7 }, (_, i) => `paged-model-${i}`);
    await Promise.all(models.map((model) => putRow(model, { input: 1, output: 2 })));
    const list = env.PRICING.list.bind(env.PRICING);
    // Real KV, in pages of two keys.
    const spy = vi
      .spyOn(env.PRICING, "list")
      .mockImplementation(((options: KVNamespaceListOptions) => list({ ...options, limit: 2 })) as never);
    const { html } = await page();
    expect(spy.mock.calls.length).toBeGreaterThanOrEqual(4);
    for (const model of models) rowOf(html, model);
  });

  it("links an http(s) source and shows a file: source as text, never as a link", async () => {
    await putRow("imported-model", { input: 1, output: 2, source: "file:///srv/litellm/prices.json" });
    const row = rowOf((await page()).html, "imported-model");
    expect(row).toContain("file:///srv/litellm/prices.json");
    expect(row).not.toContain('href="file:');
    expect(rowOf((await page()).html, "claude-opus-4-6")).toContain(
      'href="https://platform.claude.com/docs/en/about-claude/pricing"',
    );
  });

  it("shows every alias key, flags the stray ones with the reason, stray first", async () => {
    await env.PRICING.put("alias:claude-opus-4-6-20260101", "claude-opus-4-6");
    await env.PRICING.put("alias:gpt-4-old", "gpt-4");
    await env.PRICING.put("alias:opus-unlisted", "claude-opus-4-6");
    const { html } = await page();
    const panel = html.slice(html.indexOf('id="aliases"'), html.indexOf("</section>", html.indexOf('id="aliases"')));
    expect(panel).toContain("3 alias keys");
    expect(panel).toContain("2 stray");
    expect(panel).toMatch(/<tr data-alias="gpt-4-old" class="stray">[\s\S]*stray: gpt-4 has no pricing row/);
    expect(panel).toMatch(/<tr data-alias="opus-unlisted" class="stray">[\s\S]*does not list opus-unlisted/);
    expect(panel).toMatch(/<tr data-alias="claude-opus-4-6-20260101">[\s\S]*?<td>ok<\/td>/);
    expect(panel.indexOf("gpt-4-old")).toBeLessThan(panel.indexOf("claude-opus-4-6-20260101"));
  });

  it("costs no KV operation per anonymous view while the isolate holds the listing", async () => {
    await page();
    const list = vi.spyOn(env.PRICING, "list");
    const get = vi.spyOn(env.PRICING, "get");
    for (let view = 0; view < 20; view++) expect((await page()).res.status).toBe(200);
    expect(list).not.toHaveBeenCalled();
    expect(get).not.toHaveBeenCalled();
  });

  it("shows a row this isolate just wrote through the admin API, without waiting for the TTL", async () => {
    await page();
    const res = await call("/v1/admin/pricing/fresh-model", {
      method: "PUT",
      headers: { authorization: `Bearer ${ALICE_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ input: 1, output: 2 }),
    });
    expect(res.status).toBe(200);
    rowOf((await page()).html, "fresh-model");
  });

  it("answers 503, not 500, when KV cannot be listed and nothing is held", async () => {
    vi.spyOn(env.PRICING, "list").mockRejectedValue(new Error("KV is down"));
    const { res } = await page();
    expect(res.status).toBe(503);
  });

  it("shows the gate config priors from config:gate", async () => {
    await env.PRICING.put("config:gate", JSON.stringify({ expected_conversation_depth: 7, p_recall: 0.35 }));
    const { html } = await page();
    expect(html).toMatch(/<code>expected_conversation_depth<\/code><\/th><td class="num">7<\/td>/);
    expect(html).toMatch(/<code>p_recall<\/code><\/th><td class="num">0\.35<\/td>/);
    expect(html).toContain('placeholder="7"');
    expect(html).toContain("blank: the prior, 0.35");
  });

  it("says so when config:gate is invalid, and that the gate will not fire", async () => {
    await env.PRICING.put("config:gate", JSON.stringify({ p_recall: 2 }));
    const { res, html } = await page();
    expect(res.status).toBe(200);
    expect(html).toContain("config:gate is invalid");
    expect(html).toContain('role="alert"');
  });
});

describe("the console's row ages", () => {
  const now = Date.parse("2026-11-30T15:00:00Z");

  it("counts whole UTC days since verified_at", () => {
    expect(ageInDays("2026-11-30", now)).toBe(0);
    expect(ageInDays("2026-11-01", now)).toBe(29);
    expect(ageInDays(undefined, now)).toBeNull();
  });

  it(`flags a row only once it is more than ${STALE_AFTER_DAYS} days old`, () => {
    const row = (date: string) => toTableRow("m", JSON.stringify({ input: 1, output: 2, verified_at: date }), now);
    expect(row("2026-09-01")).toMatchObject({ status: "valid", ageDays: 90, stale: false });
    expect(row("2026-08-31")).toMatchObject({ status: "valid", ageDays: 91, stale: true });
  });
});
