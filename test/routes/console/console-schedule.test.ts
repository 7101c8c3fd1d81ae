import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { forgetPricing } from "../../../src/storage/read";
import { call, putRow, resetState } from "../../support/helpers";

const ROW = {
  input: 0.75,
  output: 3.75,
  cache_read: 0.075,
  provider: "google",
  scheduled: [
    { effective_at: "2027-01-01T00:00:00Z", input: 1.5, output: 7.5 },
    { effective_at: "2027-06-01T00:00:00Z", cache_read: 0.2 },
  ],
};

async function pageAt(instant: string): Promise<string> {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(instant));
  try {
    forgetPricing();
    return await (await call("/")).text();
  } finally {
    vi.useRealTimers();
  }
}

/** The table row of one model, as HTML. */
const rowOf = (html: string, model: string) =>
  html.slice(html.indexOf(`data-model="${model}"`), html.indexOf("</tr>", html.indexOf(`data-model="${model}"`)));

beforeEach(async () => {
  await resetState();
  await putRow("gemini-3.8-flash", ROW);
});
afterEach(() => vi.useRealTimers());

describe("the console: scheduled price changes", () => {
  it("lists the changes to come with their dates, without a flag while the next is more than 7 days off", async () => {
    const html = rowOf(await pageAt("2026-12-01T00:00:00Z"), "gemini-3.8-flash");
    expect(html).toContain(
      '<time datetime="2027-01-01T00:00:00Z">2027-01-01T00:00:00Z</time>: input $1.50, output $7.50',
    );
    expect(html).toContain("2027-06-01T00:00:00Z");
    expect(html).not.toContain("⚠ from");
    expect(html).toContain("$0.75");
  });

  it("flags a row whose next change is within 7 days", async () => {
    const html = rowOf(await pageAt("2026-12-25T00:00:00Z"), "gemini-3.8-flash");
    expect(html).toContain('class="badge warn soon">⚠ from <time datetime="2027-01-01T00:00:00Z">');
  });

  it("shows the prices in force once a change has taken effect, and only the changes still to come", async () => {
    const html = rowOf(await pageAt("2027-01-02T00:00:00Z"), "gemini-3.8-flash");
    expect(html).toContain("$1.50");
    expect(html).not.toContain("2027-01-01T00:00:00Z");
    expect(html).toContain("2027-06-01T00:00:00Z");
  });
});
