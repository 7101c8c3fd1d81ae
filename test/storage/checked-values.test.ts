import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkedConfig, checkedLearned } from "../../src/storage/checked";
import { GateConfigSchema, parseGateConfig } from "../../src/storage/schemas/config";
import { parseStoredLearned } from "../../src/storage/learning";
import { LearnedValueSchema, parseLearned } from "../../src/storage/schemas/learning-schema";
import { parseStoredConfig } from "../../src/storage/read";
import { runs } from "../support/runs";

// The gate reads the gate config and a tenant's learned value through the
// validators compiled from their zod schemas (src/storage/checked.ts), and asks
// zod only about a value they refuse: they must never accept what zod
// refuses, and the read must answer exactly as zod's parse does.

const SEED = 20261203;

/** The gate's read and zod's parse of one stored config: the same outcome, byte for byte. */
async function expectZodsConfig(text: string | null): Promise<boolean> {
  const fast = await parseStoredConfig(text);
  const slow = parseGateConfig(text);
  expect(fast).toStrictEqual(slow);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
  const json = text === null ? undefined : safeJson(text);
  const checked = checkedConfig(json);
  if (checked !== undefined) expect(GateConfigSchema.safeParse(json).success).toBe(true);
  return checked !== undefined;
}

/** The gate's read and zod's parse of one stored learned value: the same outcome, records with no prototype. */
async function expectZodsLearned(text: string | null, tenant = "acme"): Promise<boolean> {
  const fast = await parseStoredLearned(tenant, text);
  const slow = parseLearned(tenant, text);
  expect(fast).toStrictEqual(slow);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
  if (fast.value !== null) {
    expect(Object.getPrototypeOf(fast.value.tools)).toBeNull();
    expect(Object.getPrototypeOf(fast.value.breakers)).toBeNull();
  }
  const json = text === null ? undefined : safeJson(text);
  const checked = checkedLearned(json);
  if (checked !== undefined) expect(LearnedValueSchema.safeParse(json).success).toBe(true);
  return checked !== undefined;
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const CONFIGS: Array<[string, unknown, boolean]> = [
  ["an empty config", {}, true],
  ["priors and a mode", { p_recall: 0.4, expected_conversation_depth: 6, pricing_mode: "cache_aware" }, true],
  [
    "a price source and providers",
    { price_source_url: "https://example.com/p.json", price_source_providers: ["a"] },
    true,
  ],
  [
    "nulls where null is allowed",
    { large_offload_threshold_tokens: null, price_source_url: null, learning_credible: null },
    true,
  ],
  ["raw days within the retention", { ledger_raw_days: 30, ledger_retention_days: 30 }, true],
  ["a probability over one", { p_recall: 1.5 }, false],
  ["an unknown field", { p_recal: 0.4 }, false],
  ["a fractional horizon", { expected_conversation_depth: 2.5 }, false],
  ["raw days past the retention", { ledger_raw_days: 31 }, false],
  ["an ftp price source", { price_source_url: "ftp://example.com/p.json" }, false],
  ["an http source with no //", { price_source_url: "https:example.com/p.json" }, false],
  ["an unknown mode", { pricing_mode: "fast" }, false],
  ["a __proto__ key", JSON.parse('{"__proto__":{"p_recall":0.9}}'), false],
];

const SUMS = { p_n: 4, p_r: 1, h_n: 5, h_sum: 20, h_sumsq: 100, q_n: 2, q_cached: 1, q_turns: 3 };
const shuffled = { q_turns: 3, h_sumsq: 100, p_r: 1, p_n: 4, q_cached: 1, h_n: 5, q_n: 2, h_sum: 20 };
const LEARNED = {
  breakers: {
    read_file: {
      mode: "auto",
      state: "open",
      rule: "holdout",
      since: 5,
      opened_with: 40,
      evidence: { verdict: "losing", sessions: 40, treated: 30, held_out: 10, estimate: -1, interval: [-2, -0.5] },
    },
  },
  version: 1,
  tenant: "acme",
  computed_at: 10,
  window: { to: 10, from: 0 },
  tenant_sums: shuffled,
  tools: { read_file: { models: { "claude-opus-4-6": SUMS }, sums: shuffled } },
  replay: { grep: { bands: { ge10k: SUMS, lt2k: shuffled }, sums: SUMS } },
};
const LEARNED_CASES: Array<[string, unknown, boolean]> = [
  ["a value with every level, keys shuffled", LEARNED, true],
  [
    "a tool named __proto__",
    JSON.parse(JSON.stringify(LEARNED).replace('"read_file":{"models"', '"__proto__":{"models"')),
    true,
  ],
  ["no replay level", { ...LEARNED, replay: undefined }, true],
  // Well formed, so the check passes it; the read then refuses it for its tenant, as zod's parse does.
  ["another tenant's value", { ...LEARNED, tenant: "other" }, true],
  ["sums no outcome could make", { ...LEARNED, tenant_sums: { ...SUMS, p_r: 9 } }, false],
  [
    "a model's sums no outcome could make",
    { ...LEARNED, tools: { t: { sums: SUMS, models: { m: { ...SUMS, q_cached: 9 } } } } },
    false,
  ],
  [
    "a band no outcome could make",
    { ...LEARNED, replay: { g: { sums: SUMS, bands: { lt2k: { ...SUMS, h_sum: 1 } } } } },
    false,
  ],
  ["an unknown band", { ...LEARNED, replay: { g: { sums: SUMS, bands: { huge: SUMS } } } }, false],
  ["version 2", { ...LEARNED, version: 2 }, false],
  ["a negative count", { ...LEARNED, tools: { t: { sums: { ...SUMS, h_n: -1 }, models: {} } } }, false],
  ["an invalid entry under __proto__", JSON.parse(`{"tools":{"__proto__":{"sums":{"p_n":-1},"models":{}}}}`), false],
  [
    "a breaker in an unknown state",
    { ...LEARNED, breakers: { t: { ...LEARNED.breakers.read_file, state: "ajar" } } },
    false,
  ],
];

describe("the stored gate config checked without zod", () => {
  it("reads each config, good or bad, as zod's parse does, and takes the fast path for the good ones", async () => {
    for (const [name, config, valid] of CONFIGS)
      expect({ name, checked: await expectZodsConfig(JSON.stringify(config)) }).toEqual({ name, checked: valid });
    for (const text of [null, "{", "[]", "null", " "]) await expectZodsConfig(text);
  });

  it("leaves to zod a price source zod would trim, and serves zod's copy of it", async () => {
    expect(await expectZodsConfig(JSON.stringify({ price_source_url: " https://example.com/p.json " }))).toBe(false);
  });

  it("answers as zod does for generated configs", async () => {
    const field = fc.record(
      {
        p_recall: fc.double({ min: -0.5, max: 1.5, noNaN: true }),
        expected_conversation_depth: fc.oneof(fc.nat(2_000_000), fc.constant(1.5)),
        ledger_raw_days: fc.integer({ min: 0, max: 40 }),
        ledger_retention_days: fc.integer({ min: 0, max: 40 }),
        price_source_url: fc.oneof(fc.webUrl(), fc.constant(null), fc.string()),
        price_source_providers: fc.oneof(fc.array(fc.string({ maxLength: 70 }), { maxLength: 3 }), fc.constant(null)),
        learning_credible: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.constant(null)),
        pricing_mode: fc.constantFrom("seed", "cache_aware", "other"),
      },
      { requiredKeys: [] },
    );
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(field, async (config) => {
        if (await expectZodsConfig(JSON.stringify(config))) checked++;
      }),
      { seed: SEED, numRuns: runs(300) },
    );
    expect(checked).toBeGreaterThan(0);
  });
});

describe("a stored learned value checked without zod", () => {
  it("reads each value, good or bad, as zod's parse does, and takes the fast path for the good ones", async () => {
    for (const [name, value, valid] of LEARNED_CASES)
      expect({ name, checked: await expectZodsLearned(JSON.stringify(value)) }).toEqual({ name, checked: valid });
    for (const text of [null, "{", "[]", "null"]) await expectZodsLearned(text);
  });

  it("hands back zod's copy: keys in the schema's order, records with no prototype", () => {
    const checked = checkedLearned(JSON.parse(JSON.stringify(LEARNED)));
    const parsed = LearnedValueSchema.parse(JSON.parse(JSON.stringify(LEARNED)));
    expect(JSON.stringify(checked)).toBe(JSON.stringify(parsed));
    expect(Object.keys(checked?.tenant_sums ?? {})).toEqual(Object.keys(SUMS));
  });

  it("answers as zod does for generated sums", async () => {
    // Sums as outcomes make them (each bound of sumsInconsistency held), then now and then one field anything.
    const consistent = fc
      .record({ h_n: fc.nat(50), a: fc.nat(10), b: fc.nat(10), c: fc.double({ min: 0, max: 1, noNaN: true }) })
      .map(({ h_n, a, b, c }) => {
        const h_sum = h_n * a;
        const q_turns = Math.floor(h_sum * c);
        const p_n = Math.floor(h_n * c);
        return {
          p_n,
          p_r: Math.floor(p_n * c),
          h_n,
          h_sum,
          h_sumsq: h_sum * Math.max(1, b),
          q_n: p_n,
          q_cached: Math.floor(q_turns * c),
          q_turns,
        };
      });
    const field = fc.constantFrom("p_n", "p_r", "h_n", "h_sum", "h_sumsq", "q_n", "q_cached", "q_turns");
    const sums = fc.oneof(
      { arbitrary: consistent, weight: 3 },
      {
        arbitrary: fc
          .tuple(consistent, field, fc.oneof(fc.nat(1_000), fc.constant(-1), fc.constant(1e13)))
          .map(([level, name, value]) => ({ ...level, [name]: value })),
        weight: 1,
      },
    );
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(sums, sums, async (tenant, tool) => {
        const value = { ...LEARNED, tenant_sums: tenant, tools: { t: { sums: tool, models: {} } } };
        if (await expectZodsLearned(JSON.stringify(value))) checked++;
      }),
      { seed: SEED, numRuns: runs(300) },
    );
    expect(checked).toBeGreaterThan(30);
  });
});
