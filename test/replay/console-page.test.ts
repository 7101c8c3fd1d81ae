import { beforeEach, describe, expect, it } from "vitest";
import { REPLAY_SCRIPT } from "../../src/routes/console/replay";
import { call, OPUS, putRow, resetState } from "../support/helpers";

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", {
    ...OPUS,
    provider: "anthropic",
    scheduled: [{ effective_at: "2027-01-01T00:00:00Z", input: 6 }],
  });
  await putRow("broken-row", { input: -1, output: 2 });
});

describe("GET /console/replay", () => {
  it("serves the drop zone, its script and every valid pricing row as stored, scheduled changes included", async () => {
    const res = await call("/console/replay");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('id="replay-file"');
    expect(html).toContain(`<script src="${REPLAY_SCRIPT}" defer=""></script>`);
    const data = JSON.parse(
      /<script type="application\/json" id="replay-pricing">([\s\S]*?)<\/script>/.exec(html)![1]!,
    );
    expect(Object.keys(data.models)).toEqual(["claude-opus-4-6"]);
    expect(data.models["claude-opus-4-6"].scheduled).toEqual([{ effective_at: "2027-01-01T00:00:00Z", input: 6 }]);
  });

  it("lets the page connect nowhere: it replays in the browser and sends nothing", async () => {
    const csp = (await call("/console/replay")).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("script-src 'self'");
  });

  it("answers another method with 405 in the one error shape", async () => {
    const res = await call("/console/replay", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect((await res.json()) as object).toMatchObject({ error: { code: expect.any(String) } });
  });
});
