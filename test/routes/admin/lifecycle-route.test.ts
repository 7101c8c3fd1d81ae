import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { postGate, putAlias, putRow, resetState } from "../../support/helpers";

const ASK = { output_tokens: 20_000, horizon: 4, recall_probability: 0.25 };
const GEMINI_25_PRO = {
  input: 1.25,
  output: 10,
  aliases: ["gemini-2.5-pro-001"],
  provider: "google",
  retires_at: "2026-12-01",
  replaced_by: "gemini-3.8-flash",
};
const GEMINI_38_FLASH = { input: 0.75, output: 3.75, cache_read: 0.075, provider: "google" };
const HAIKU_35 = {
  input: 0.8,
  output: 4,
  aliases: ["claude-3-5-haiku-20241022"],
  provider: "anthropic",
  deprecated_at: "2025-12-19",
  retires_at: "2026-02-19",
};

/** POST /v1/gate at a given moment: the route reads the clock, the core gets today's date. */
async function gateAt(instant: string, model: string) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date(instant));
  const res = await postGate({ model_name: model, ...ASK });
  vi.useRealTimers();
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

beforeEach(async () => {
  await resetState();
  await putRow("gemini-2.5-pro", GEMINI_25_PRO);
  await putAlias("gemini-2.5-pro-001", "gemini-2.5-pro");
  await putRow("gemini-3.8-flash", GEMINI_38_FLASH);
  await putRow("claude-3-5-haiku", HAIKU_35);
  await putAlias("claude-3-5-haiku-20241022", "claude-3-5-haiku");
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("POST /v1/gate: a model's lifecycle", () => {
  it("prices a model at its own row the day before retires_at, and says it is deprecated", async () => {
    const body = await gateAt("2026-11-30T23:59:59Z", "gemini-2.5-pro");
    expect(body.priced_as).toEqual({
      model: "gemini-2.5-pro",
      input: 1.25,
      output: 10,
      provider: "google",
      resolved_from: "exact",
      price_effective_at: null,
    });
    expect(body.lifecycle).toEqual({
      model: "gemini-2.5-pro",
      status: "deprecated",
      deprecated_at: null,
      retires_at: "2026-12-01",
      replaced_by: "gemini-3.8-flash",
      priced_as_replacement: false,
      chain: ["gemini-2.5-pro"],
    });
    expect(body.reprefill_saving_usd).toBeCloseTo(20_000 * 1.25e-6 * 4, 12);
  });

  it("prices it as its replacement from retires_at on, as the provider bills it, and says so", async () => {
    const written = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const body = await gateAt("2026-12-01T00:00:00Z", "gemini-2.5-pro");
    expect(body.priced_as).toEqual({
      model: "gemini-3.8-flash",
      ...GEMINI_38_FLASH,
      resolved_from: "exact",
      price_effective_at: null,
    });
    expect(body.lifecycle).toMatchObject({
      status: "retired",
      priced_as_replacement: true,
      chain: ["gemini-2.5-pro", "gemini-3.8-flash"],
    });
    expect(body.reprefill_saving_usd).toBeCloseTo(20_000 * 0.75e-6 * 4, 12);
    expect(body.reason).toMatch(/model=gemini-2.5-pro$/);
    // Analytics records what priced it, and that the requested model is retired.
    expect(written.mock.calls[0]?.[0]?.blobs?.[1]).toBe("gemini-3.8-flash");
    expect(written.mock.calls[0]?.[0]?.blobs?.[12]).toBe("retired");
  });

  it("applies the same rule to an alias of a retired model", async () => {
    const body = await gateAt("2026-12-02T12:00:00Z", "gemini-2.5-pro-001");
    expect(body.priced_as.model).toBe("gemini-3.8-flash");
    expect(body.lifecycle).toMatchObject({ model: "gemini-2.5-pro", status: "retired", priced_as_replacement: true });
  });

  it("answers unpriced for a retired model without replacement, naming the retirement, also through an alias", async () => {
    for (const model of ["claude-3-5-haiku", "claude-3-5-haiku-20241022"]) {
      const body = await gateAt("2026-11-30T09:00:00Z", model);
      expect(body).toMatchObject({ fire: false, reason_code: "unpriced", priced_as: null, net_saving_usd: 0 });
      expect(body.reason).toBe(
        `no usable pricing for '${model}': claude-3-5-haiku retired on 2026-02-19 and names no replacement`,
      );
      expect(body.lifecycle).toMatchObject({
        model: "claude-3-5-haiku",
        status: "retired",
        deprecated_at: "2025-12-19",
        priced_as_replacement: false,
      });
    }
  });

  it("does not fire when the replacement has no row, and says which replacement is missing", async () => {
    await putRow("o4-mini", { input: 1.1, output: 4.4, retires_at: "2026-10-23", replaced_by: "gpt-5.6-terra" });
    const body = await gateAt("2026-11-30T09:00:00Z", "o4-mini");
    expect(body).toMatchObject({ fire: false, reason_code: "unpriced", priced_as: null });
    expect(body.reason).toBe(
      "no usable pricing for 'o4-mini': o4-mini retired on 2026-10-23; its replacement gpt-5.6-terra has no pricing row",
    );
  });

  it("does not fire on a loop of replacements, and says why", async () => {
    await putRow("a", { input: 1, output: 1, retires_at: "2020-01-01", replaced_by: "b" });
    await putRow("b", { input: 2, output: 2, retires_at: "2020-01-01", replaced_by: "a" });
    const body = await gateAt("2026-11-30T09:00:00Z", "a");
    expect(body).toMatchObject({ fire: false, reason_code: "unpriced" });
    expect(body.reason).toBe("no usable pricing for 'a': b retired on 2020-01-01; its replacements loop (a → b → a)");
  });

  it("does not fire when the replacement's row is corrupt: pricing_unavailable, naming both", async () => {
    await putRow("gemini-3.8-flash", "{not json");
    const body = await gateAt("2026-12-02T00:00:00Z", "gemini-2.5-pro");
    expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable" });
    expect(body.reason).toMatch(
      /gemini-2.5-pro retired on 2026-12-01; its replacement gemini-3.8-flash: pricing:gemini-3.8-flash is not valid JSON/,
    );
  });

  it("leaves rows without lifecycle dates as they were: lifecycle null", async () => {
    const body = await gateAt("2026-11-30T09:00:00Z", "gemini-3.8-flash");
    expect(body.lifecycle).toBeNull();
    expect(body.priced_as.model).toBe("gemini-3.8-flash");
  });
});
