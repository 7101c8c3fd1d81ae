import fc from "fast-check";
import { describe, expect, it } from "vitest";
import seed from "../../pricing.seed.json" with { type: "json" };
import { checkedRow } from "../../src/storage/checked";
import { parseRow } from "../../src/storage/schemas/parse-row";
import { parseStoredRow } from "../../src/storage/read";
import { PRICE_FIELDS } from "../../src/storage/rules/row-values";
import { LongContextTierSchema, PricingRowSchema } from "../../src/storage/schemas/schema";
import { runs } from "../support/runs";

// The gate reads a stored pricing row through the validator compiled from
// its zod schema (src/storage/checked.ts) and asks zod only about a row that
// check refuses. So the check must never accept a row zod refuses, must hand
// back zod's copy byte for byte (priced_as copies a row, keys in order), and
// the read must answer as zod's parse does for every text.

const SEED = 20261203;

/** The check and zod on one row: one-sided (the check accepts only what zod accepts), the same copy when it does. */
function expectZodsCopy(json: unknown): { zod: boolean; checked: boolean } {
  const checked = checkedRow(json);
  const parsed = PricingRowSchema.safeParse(json);
  if (checked !== undefined) {
    expect({ json, zod: parsed.success }).toEqual({ json, zod: true });
    expect(JSON.stringify(checked)).toBe(JSON.stringify(parsed.data));
    expect(checked).toStrictEqual(parsed.data);
  }
  return { zod: parsed.success, checked: checked !== undefined };
}

/** The gate's read and zod's parse of one stored text: the same outcome, detail and key order included. */
async function expectZodsOutcome(text: string): Promise<void> {
  const fast = await parseStoredRow("m", text);
  const slow = parseRow("m", text);
  expect(fast).toStrictEqual(slow);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
}

const BASE = { input: 5, output: 25 };
const VALID: Array<[string, unknown]> = [
  ["the least row", BASE],
  ["keys in another order than the schema's", { output: 25, provider: "x", input: 5, cache_read: 0.5 }],
  [
    "a tier and a schedule, keys shuffled",
    {
      scheduled: [
        { output: 7.5, effective_at: "2027-01-01T00:00:00Z", long_context: { output: 9 } },
        { source: "https://example.com/p", input: 2, effective_at: "2027-02-01T00:00:00+01:00" },
      ],
      long_context: { input: 10, threshold_tokens: 200_000 },
      ...BASE,
    },
  ],
  ["a file: source", { ...BASE, source: "file:///tmp/prices.json" }],
  ["dates in order", { ...BASE, deprecated_at: "2027-01-01", retires_at: "2027-06-30", replaced_by: "gpt-6" }],
  ["aliases", { ...BASE, aliases: ["a-1", "b-2"] }],
  ["no prompt cache", { ...BASE, prompt_cache: false }],
  ["a note of 500 UTF-16 units", { ...BASE, source_note: "é".repeat(500) }],
];
const INVALID: Array<[string, unknown]> = [
  ["no output", { input: 5 }],
  ["a negative price", { ...BASE, input: -1 }],
  ["a price over the maximum", { ...BASE, output: 1_000_001 }],
  ["an unknown field", { ...BASE, extra: 1 }],
  ["a __proto__ key", JSON.parse('{"input":5,"output":25,"__proto__":{"x":1}}')],
  ["a javascript: source", { ...BASE, source: "javascript:alert(1)" }],
  ["a source that is no URL", { ...BASE, source: "not a url" }],
  ["a source over 512 units", { ...BASE, source: `https://example.com/${"a".repeat(500)}` }],
  ["a note of 501 code points", { ...BASE, source_note: "é".repeat(501) }],
  ["a provider of 65 astral characters", { ...BASE, provider: "😀".repeat(65) }],
  ["an impossible date", { ...BASE, verified_at: "2027-02-30" }],
  ["a retirement before the deprecation", { ...BASE, deprecated_at: "2027-06-01", retires_at: "2027-01-01" }],
  ["a repeated alias", { ...BASE, aliases: ["a", "a"] }],
  ["a reserved alias", { ...BASE, aliases: ["__proto__"] }],
  ["a reserved replacement", { ...BASE, replaced_by: "__proto__" }],
  ["cache prices with no prompt cache", { ...BASE, prompt_cache: false, cache_read: 1 }],
  ["a change that prices nothing", { ...BASE, scheduled: [{ effective_at: "2027-01-01T00:00:00Z" }] }],
  [
    "changes out of order",
    {
      ...BASE,
      scheduled: [
        { effective_at: "2027-02-01T00:00:00Z", input: 1 },
        { effective_at: "2027-01-01T00:00:00Z", input: 2 },
      ],
    },
  ],
  [
    "a tier change with no tier",
    { ...BASE, scheduled: [{ effective_at: "2027-01-01T00:00:00Z", long_context: { input: 1 } }] },
  ],
  ["an instant with no offset", { ...BASE, scheduled: [{ effective_at: "2027-01-01T00:00:00", input: 1 }] }],
  ["not an object", [1, 2]],
];
// zod accepts these: it trims or strips the URL, or counts code points where the check counts UTF-16 units (the
// stricter count), so the check leaves them to zod, whose copy is then the one served.
const ZODS_TO_COPY: Array<[string, unknown]> = [
  ["a note of 500 code points but 1,000 UTF-16 units", { ...BASE, source_note: "😀".repeat(500) }],
  ["a provider of 33 astral characters", { ...BASE, provider: "😀".repeat(33) }],
  ["a source with spaces around it", { ...BASE, source: "  https://example.com/p  " }],
  ["a source with a tab in it", { ...BASE, source: "https://exa\tmple.com/p" }],
];

describe("a stored pricing row checked without zod", () => {
  it("accepts every row of pricing.seed.json, as zod's copy", () => {
    const rows = Object.values(seed.models);
    expect(rows.length).toBeGreaterThan(40);
    for (const row of rows) expect(expectZodsCopy(row)).toEqual({ zod: true, checked: true });
  });

  it("accepts the valid rows as zod's copy, keys in the schema's order", () => {
    for (const [name, row] of VALID)
      expect({ name, ...expectZodsCopy(row) }).toEqual({ name, zod: true, checked: true });
    expect(Object.keys(checkedRow(VALID[1]?.[1]) ?? {})).toEqual(["input", "output", "cache_read", "provider"]);
  });

  it("refuses every row zod refuses", () => {
    for (const [name, row] of INVALID)
      expect({ name, ...expectZodsCopy(row) }).toEqual({ name, zod: false, checked: false });
  });

  it("leaves to zod a URL zod would trim or strip and a string long in UTF-16 units, so the row served is zod's", async () => {
    for (const [name, row] of ZODS_TO_COPY) {
      expect({ name, ...expectZodsCopy(row) }).toEqual({ name, zod: true, checked: false });
      await expectZodsOutcome(JSON.stringify(row));
    }
  });

  it("reads every stored text as zod's parse does: rows, refusals, broken JSON and an oversized text", async () => {
    const texts = [...VALID, ...INVALID, ...ZODS_TO_COPY].map(([, row]) => JSON.stringify(row));
    for (const text of [...texts, "{", "null", "", JSON.stringify({ ...BASE, source_note: "x".repeat(17_000) })])
      await expectZodsOutcome(text);
  });

  it("names the same price fields as the schema", () => {
    expect([...PRICE_FIELDS]).toEqual(
      Object.keys(LongContextTierSchema.shape).filter((key) => key !== "threshold_tokens"),
    );
  });

  it("never accepts a generated row zod refuses, and copies each it accepts as zod does", async () => {
    const price = fc.oneof(
      { arbitrary: fc.double({ min: 0, max: 1_000_000, noNaN: true }), weight: 6 },
      { arbitrary: fc.constantFrom(-1, 1_000_001, 0, 1_000_000), weight: 1 },
    );
    // Mostly valid parts, so that a fair share of rows passes and the copies are compared too.
    const mostly = <T, U>(valid: fc.Arbitrary<T>, odd: fc.Arbitrary<U>) =>
      fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: odd, weight: 1 });
    const text = mostly(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: "grapheme", maxLength: 70 }));
    const url = mostly(
      fc.webUrl(),
      fc.constantFrom("file:///a", " https://a.b/ ", "ftp://a.b/", "https:a.b", "http://", "https://a.b/\n", "x"),
    );
    const day = fc.date({ min: new Date("2020-01-01"), max: new Date("2030-12-31"), noInvalidDate: true });
    const date = mostly(
      day.map((d) => d.toISOString().slice(0, 10)),
      fc.constantFrom("2027-02-29", "2028-02-29", "2027-13-01", "27-01-01"),
    );
    const instant = mostly(
      day.map((d) => d.toISOString()),
      fc.constantFrom("2027-01-01T00:00:00+02:00", "2027-01-01T00:00:00", "2027-01-01"),
    );
    const name = mostly(fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.constantFrom("a", "__proto__", "bad name"));
    const tier = fc.record(
      {
        threshold_tokens: mostly(fc.integer({ min: 1, max: 400_000 }), fc.constantFrom(-1, 0, 1.5)),
        input: price,
        output: price,
        cache_read: price,
      },
      { requiredKeys: ["threshold_tokens"] },
    );
    const change = fc.record(
      { effective_at: instant, input: price, output: price, cache_write: price, long_context: tier, source: url },
      { requiredKeys: ["effective_at", "input"] },
    );
    const row = fc.record(
      {
        input: price,
        output: price,
        cache_read: price,
        cache_write: price,
        cache_write_1h: price,
        long_context: tier,
        aliases: fc.uniqueArray(name, { maxLength: 3 }),
        provider: text,
        source: url,
        source_note: text,
        verified_at: date,
        deprecated_at: date,
        retires_at: date,
        replaced_by: name,
        lifecycle_source: url,
        prompt_cache: mostly(fc.constant(true), fc.constantFrom(false, "yes")),
        scheduled: mostly(fc.array(change, { maxLength: 1 }), fc.array(change, { minLength: 2, maxLength: 3 })),
      },
      { requiredKeys: ["input", "output"] },
    );
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(row, async (generated) => {
        const json = JSON.parse(JSON.stringify(generated));
        if (expectZodsCopy(json).checked) checked++;
        await expectZodsOutcome(JSON.stringify(json));
      }),
      { seed: SEED, numRuns: runs(400) },
    );
    // Not a check that refuses everything: a share of the generated rows takes the fast path (74 of 400 at this seed).
    expect(checked).toBeGreaterThan(40);
  });
});
