import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { adminCall, expect400 } from "../../support/admin-helpers";
import { GPT5, putPricing, usePricingAdmin } from "../../support/admin-pricing";
import { resetState } from "../../support/helpers";

usePricingAdmin();
const put = putPricing;

describe("alias keys on a rewrite", () => {
  beforeEach(async () => {
    await resetState();
  });

  it("writes only the alias keys that are new, not those already pointing to the row", async () => {
    await put("gpt-5", { ...GPT5, aliases: ["gpt-5-a"] });
    const putSpy = vi.spyOn(env.PRICING, "put");
    await put("gpt-5", { ...GPT5, input: 2, aliases: ["gpt-5-a", "gpt-5-b"] });
    const written = putSpy.mock.calls.map((args) => args[0]);
    expect(written).toContain("alias:gpt-5-b");
    expect(written).not.toContain("alias:gpt-5-a");
  });
});

describe("validation that protects the numbers", () => {
  it("refuses a source that is not an http(s) or file: URL", async () => {
    for (const source of ["javascript:alert(1)", "data:text/html,<b>x</b>", "ftp://prices.example/list"]) {
      await expect400(await put("gpt-5", { ...GPT5, source }), "source", "must be an http(s) URL");
    }
    expect((await put("gpt-5", { ...GPT5, source: "https://openai.com/api/pricing/" })).status).toBe(200);
    // A row imported from a local LiteLLM file names that file.
    expect((await put("gpt-5", { ...GPT5, source: "file:///srv/litellm/prices.json" })).status).toBe(200);
  });

  it("refuses a verified_at in the future, and takes today", async () => {
    await expect400(
      await put("gpt-5", { ...GPT5, verified_at: "2999-01-01" }),
      "verified_at",
      "must not be in the future",
    );
    const today = new Date().toISOString().slice(0, 10);
    expect((await put("gpt-5", { ...GPT5, verified_at: today })).status).toBe(200);
  });

  it("refuses an alias listed twice in one row", async () => {
    await expect400(
      await put("gpt-5", { ...GPT5, aliases: ["gpt-5-a", "gpt-5-b", "gpt-5-a"] }),
      "aliases.2",
      "repeats gpt-5-a",
    );
  });

  it("warns about a price that underflows to 0, naming the field", async () => {
    const res = await adminCall(
      "PUT",
      "/v1/admin/pricing/gpt-5",
      '{"input": 1.25, "output": 10, "cache_read": 1e-400}',
    );
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body.warnings).toContainEqual({ path: "cache_read", message: expect.stringContaining("underflows to 0") });
  });

  it("warns about an output of 0 next to a non-zero input, and not about a real 0 input", async () => {
    const zeroOutput = await (await put("gpt-5", { input: 1.25, output: 0 })).json<any>();
    expect(zeroOutput.warnings).toContainEqual({
      path: "output",
      message: expect.stringContaining("is 0 while input is 1.25"),
    });
    const free = await (await put("free-model", { input: 0, output: 0, cache_read: 0 })).json<any>();
    expect(free.warnings).toEqual([]);
  });

  it("names the field once in an error message", async () => {
    const res = await put("gpt-5", { input: "cheap", output: 10 });
    const body = await res.json<any>();
    expect(body.error.message).toBe("input must be a number");
    expect(body.error.issues).toEqual([{ path: "input", message: "must be a number" }]);
  });
});
