import { describe, expect, it, vi } from "vitest";
import { adminCall } from "../support/admin-helpers";
import { EXAMPLE_A, OPUS, putGateConfig, putRow } from "../support/helpers";
import {
  MODEL,
  NEW,
  advanceClock,
  canonical,
  decide,
  omitModel,
  pricedByOneRow,
  useFaultState,
} from "./faults-support";

useFaultState();

describe("a corrupt or oversized row", () => {
  const cases: [string, string, string][] = [
    ["not JSON", '{"input": 5, "output":', "pricing:broken-model is not valid JSON"],
    [
      "over 16 KiB",
      JSON.stringify({ input: 5, output: 25, provider: "x".repeat(17_000) }),
      "pricing:broken-model is oversized (17037 bytes > 16384)",
    ],
    [
      "against the schema",
      JSON.stringify({ input: -5, output: 25 }),
      "pricing:broken-model is invalid: input: must not be negative",
    ],
  ];

  it.each(cases)(
    "answers pricing_unavailable for a row %s, and logs it once, not once per request",
    async (_what, text, detail) => {
      await putRow("broken-model", text);
      const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const bodies = await Promise.all(
        Array.from({ length: 5 }, () => decide({ ...EXAMPLE_A, model_name: "broken-model" })),
      );
      for (let i = 0; i < 20; i++) bodies.push(await decide({ ...EXAMPLE_A, model_name: "broken-model" }));
      for (const body of bodies) {
        expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable", priced_as: null });
        expect(body.reason).toBe(`pricing unavailable for 'broken-model': ${detail}`);
      }
      expect(warn.mock.calls).toEqual([[`offload-gate: ${detail}`]]);
    },
  );

  it("logs a corrupt config:gate once and does not fire while it stays corrupt", async () => {
    await putGateConfig('{"p_recall": 7}');
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    for (let i = 0; i < 10; i++) {
      const body = await decide();
      expect(body).toMatchObject({ fire: false, reason_code: "pricing_unavailable" });
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain("config:gate is invalid: p_recall");
  });
});

describe("concurrent price writes while gates read", () => {
  it("prices every answer by exactly the old row or the new one, never a mix", async () => {
    // A 1 s TTL and a clock moved on each round make every round re-read KV
    // while a write to the same key is in flight.
    await putGateConfig({ pricing_cache_ttl_seconds: 1 });
    const seen = new Set<string>();
    for (let round = 0; round < 12; round++) {
      advanceClock(1_500);
      const row = round % 2 === 0 ? NEW : OPUS;
      const requests = Array.from({ length: 8 }, (_, i) => ({
        ...EXAMPLE_A,
        output_tokens: 12_000 + 1_000 * i + round,
      }));
      const [, ...bodies] = await Promise.all([putRow(MODEL, row), ...requests.map((request) => decide(request))]);
      bodies.forEach((body, i) => seen.add(pricedByOneRow(body, requests[i] as typeof EXAMPLE_A)));
    }
    // Both rows were served, so the check above had something to tell apart.
    expect([...seen].sort()).toEqual(["new", "old"]);
  });

  it("prices every answer by exactly one row while admin PUTs race the reads", async () => {
    const seen = new Set<string>();
    for (let round = 0; round < 10; round++) {
      const row = round % 2 === 0 ? NEW : OPUS;
      const requests = Array.from({ length: 8 }, (_, i) => ({
        ...EXAMPLE_A,
        output_tokens: 12_000 + 1_000 * i + round,
      }));
      const [written, ...bodies] = await Promise.all([
        adminCall("PUT", `/v1/admin/pricing/${MODEL}`, row),
        ...requests.map((request) => decide(request)),
      ]);
      expect(written.status).toBe(200);
      bodies.forEach((body, i) => seen.add(pricedByOneRow(body, requests[i] as typeof EXAMPLE_A)));
      // Once the PUT has answered, this isolate serves the row it wrote.
      expect(canonical(omitModel((await decide()).priced_as))).toBe(canonical(row));
    }
    expect([...seen].sort()).toEqual(["new", "old"]);
  });
});

/** A row's JSON with its keys sorted, so two rows compare by content. */
