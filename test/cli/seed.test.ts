import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { diffSeed, exportSeed, formatDiff, planSeed, validateSeed, type KvSnapshot } from "../../scripts/pricing/seed";
import type { PricingSeed } from "../../src/storage/schemas/schema";

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"));
const TODAY = new Date("2026-12-07T12:00:00Z");
const SMALL = fixture("seed-small.json") as PricingSeed;

const snapshotOf = (seed: PricingSeed): KvSnapshot => {
  const snapshot: KvSnapshot = { rows: new Map(), aliases: new Map() };
  for (const [model, row] of Object.entries(seed.models)) {
    snapshot.rows.set(model, JSON.stringify(row));
    for (const alias of row.aliases ?? []) snapshot.aliases.set(alias, model);
  }
  return snapshot;
};

describe("validateSeed", () => {
  it("passes pricing.seed.json with no errors, and only the warnings its known gaps explain", () => {
    const verdict = validateSeed(JSON.parse(readFileSync("pricing.seed.json", "utf8")), TODAY);
    expect(verdict.errors).toEqual([]);
    expect(Object.keys(verdict.seed?.models ?? {}).length).toBeGreaterThan(30);
    // The seed has no gaps (docs/design/economics.md §3.4): every replacement has a row, every row a cache_read.
    // Sonnet 5's introductory price is kept as its row's own prices, ended by a change already in force,
    // so that replay prices a session of July or August 2026 at 2/10: the one warning the seed keeps.
    expect(verdict.warnings).toEqual([
      "models.claude-sonnet-5.scheduled.0: took effect on 2026-09-01T00:00:00Z; fold it into the row's prices and drop it",
    ]);
  });

  it("names each broken field: negative, unknown, wrong type, non-finite, bad name, alias clash", () => {
    const { errors, seed } = validateSeed(fixture("seed-invalid.json"), TODAY);
    expect(seed).toBeNull();
    expect(errors).toEqual(
      expect.arrayContaining([
        "models.gpt-5.input: must not be negative",
        "models.gpt-5-mini.cache_raed: is not a known field",
        "models.gpt-5-nano.output: must be a number",
        expect.stringMatching(/^models\.gpt-4o\.input: /),
        expect.stringMatching(/^models\.bad name: must match/),
      ]),
    );
  });

  it("reports an alias that clashes with a model", () => {
    const seed = {
      models: { "gpt-5": { input: 1, output: 2 }, "claude-x": { input: 3, output: 15, aliases: ["gpt-5"] } },
    };
    expect(validateSeed(seed, TODAY).errors).toEqual([
      "models.claude-x.aliases: alias gpt-5 is already claimed by gpt-5",
    ]);
  });

  it("warns, without failing, about odd Anthropic cache ratios, cheap output, old dates and missing sources", () => {
    const { errors, warnings } = validateSeed(fixture("seed-warnings.json"), TODAY);
    expect(errors).toEqual([]);
    expect(warnings).toEqual([
      "models.claude-odd.cache_read: is 0.5, not at most 0.1 × input (0.30000000000000004), as Anthropic prices it",
      "models.cheap-output.output: is below input (1 < 2); output usually costs more",
      "models.cheap-output.verified_at: 2025-01-01 is over 180 days old; check the price again",
      "models.cheap-output.cache_read: is missing: cache-aware decisions at q > 0 on this row do not fire (pricing_incomplete); give the provider's cache-read price, or prompt_cache: false if the model has no prompt cache",
    ]);
  });
});

describe("validateSeed: lifecycle fields", () => {
  const row = { input: 1, output: 2, provider: "x", source: "https://example.com/prices", verified_at: "2026-11-30" };

  it("refuses a loop of replacements and a retirement before the deprecation", () => {
    const loop = {
      models: {
        a: { ...row, retires_at: "2026-01-01", replaced_by: "b" },
        b: { ...row, retires_at: "2026-01-01", replaced_by: "a" },
      },
    };
    expect(validateSeed(loop, TODAY).errors).toEqual([
      "models.a.replaced_by: replacements loop: a → b → a",
      "models.b.replaced_by: replacements loop: b → a → b",
    ]);
    const self = { models: { a: { ...row, retires_at: "2026-01-01", replaced_by: "a" } } };
    expect(validateSeed(self, TODAY).errors).toEqual(["models.a.replaced_by: replacements loop: a → a"]);
    const backwards = { models: { a: { ...row, deprecated_at: "2026-05-01", retires_at: "2026-04-01" } } };
    expect(validateSeed(backwards, TODAY).errors).toEqual([
      "models.a.retires_at: must not be before deprecated_at (2026-05-01)",
    ]);
  });

  it("refuses a replacement the seed cannot price, and warns about a replacement with no retirement date", () => {
    const seed = { models: { a: { ...row, retires_at: "2026-12-01", replaced_by: "gone" } } };
    expect(validateSeed(seed, TODAY).errors).toEqual([
      "models.a.replaced_by: names gone, which has no row (nor alias) in this seed",
    ]);
    const row2 = { ...row, cache_read: 0.1 };
    const priced = {
      models: {
        b: { ...row2, replaced_by: "c" },
        c: { ...row2, aliases: ["c-1"] },
        d: { ...row2, retires_at: "2026-01-01", replaced_by: "c-1" },
      },
    };
    const { errors, warnings } = validateSeed(priced, TODAY);
    expect(errors).toEqual([]);
    expect(warnings).toEqual(["models.b.replaced_by: takes effect only with retires_at"]);
  });
});

describe("diffSeed", () => {
  it("finds nothing when KV holds the seed, whatever the key order", () => {
    const snapshot = snapshotOf(SMALL);
    snapshot.rows.set("gpt-5", JSON.stringify({ provider: "openai", ...SMALL.models["gpt-5"] }));
    expect(diffSeed(SMALL, snapshot)).toEqual({ rows: [], aliases: [] });
  });

  it("names every changed field with its old and new value, row by row", () => {
    const snapshot = snapshotOf(SMALL);
    snapshot.rows.set("gpt-5", JSON.stringify({ ...SMALL.models["gpt-5"], input: 1, cache_read: undefined }));
    snapshot.rows.delete("claude-opus-4-6");
    snapshot.rows.set("gpt-4", JSON.stringify({ input: 30, output: 60 }));
    snapshot.rows.set("claude-opus-4-5", '{"input": 5}');
    const diff = diffSeed(SMALL, snapshot);
    expect(diff.rows.map((row) => [row.model, row.kind])).toEqual([
      ["claude-opus-4-5", "invalid_in_kv"],
      ["claude-opus-4-6", "added"],
      ["gpt-4", "only_in_kv"],
      ["gpt-5", "changed"],
    ]);
    expect(formatDiff(diff)).toContain("~ gpt-5: cache_read (absent) → 0.125, input 1 → 1.25");
  });

  it("follows aliases: a missing alias key is added, a re-pointed one changed, a stale one removed", () => {
    const snapshot = snapshotOf(SMALL);
    snapshot.aliases.delete("gpt-5-2025-08-07");
    snapshot.aliases.set("claude-opus-4-5-20251101", "claude-opus-4-6");
    snapshot.aliases.set("gpt-5-old", "gpt-5");
    snapshot.aliases.set("other-alias", "not-in-seed");
    expect(diffSeed(SMALL, snapshot).aliases).toEqual([
      { alias: "claude-opus-4-5-20251101", from: "claude-opus-4-6", to: "claude-opus-4-5" },
      { alias: "gpt-5-2025-08-07", from: null, to: "gpt-5" },
      { alias: "gpt-5-old", from: "gpt-5", to: null },
    ]);
  });
});

describe("pricing.seed.json's source notes", () => {
  const PROVIDER = { anthropic: "Anthropic's", openai: "OpenAI's", google: "Google's" } as Record<string, string>;

  it("say where each figure comes from in words a user can check: the provider's own page by name, never a work ticket, tracker or reseller", () => {
    const seed = JSON.parse(readFileSync("pricing.seed.json", "utf8")) as PricingSeed;
    const noted = Object.entries(seed.models).filter(([, row]) => row.source_note !== undefined);
    expect(noted.length).toBeGreaterThan(10);
    for (const [model, row] of noted) {
      const note = row.source_note!;
      expect(note, model).not.toMatch(
        /issue \d+|ticket|tracker|reseller|laozhang|aifreeapi|apidog|TokenMeter|PromptFuel|simstudio|LiteLLM|catalog/i,
      );
      // Either apostrophe: a note quoted in a shell example in the docs takes the typographic one.
      expect(note.replaceAll("\u2019", "'"), model).toContain(PROVIDER[row.provider ?? ""] ?? "a provider's");
    }
  });
});

describe("planSeed", () => {
  it("writes only what changed and deletes nothing unless pruning", () => {
    const snapshot = snapshotOf(SMALL);
    snapshot.rows.set("gpt-5", JSON.stringify({ ...SMALL.models["gpt-5"], input: 1 }));
    snapshot.rows.set("gpt-4", JSON.stringify({ input: 30, output: 60 }));
    snapshot.aliases.set("gpt-4-0613", "gpt-4");
    const diff = diffSeed(SMALL, snapshot);
    const plan = planSeed(diff, snapshot, { prune: false });
    expect(plan.puts.map((put) => put.key)).toEqual(["pricing:gpt-5"]);
    expect(plan.deletes).toEqual([]);
    expect(plan.changes).toEqual([
      { model: "gpt-5", before: { ...SMALL.models["gpt-5"], input: 1 }, after: SMALL.models["gpt-5"] },
    ]);
    expect(planSeed(diff, snapshot, { prune: true }).deletes).toEqual(["pricing:gpt-4", "alias:gpt-4-0613"]);
  });
});

describe("planSeed with missingOnly (npm run dev)", () => {
  it("writes only the rows and aliases KV lacks, and names every key it kept that differs", () => {
    const snapshot = snapshotOf(SMALL);
    // A price changed through the admin API, a row gone, an alias re-pointed and one gone.
    snapshot.rows.set("gpt-5", JSON.stringify({ ...SMALL.models["gpt-5"], input: 1 }));
    snapshot.rows.delete("claude-opus-4-5");
    snapshot.aliases.set("gpt-5-2025-08-07", "claude-opus-4-5");
    snapshot.aliases.delete("claude-opus-4-5-20251101");
    const plan = planSeed(diffSeed(SMALL, snapshot), snapshot, { prune: false, missingOnly: true });
    expect(plan.puts.map((put) => put.key)).toEqual(["pricing:claude-opus-4-5", "alias:claude-opus-4-5-20251101"]);
    expect(plan.changes.map((change) => change.model)).toEqual(["claude-opus-4-5"]);
    expect(plan.deletes).toEqual([]);
    expect(plan.kept).toEqual(["gpt-5", "alias gpt-5-2025-08-07"]);
  });
});

describe("exportSeed", () => {
  it("gives KV's rows back in the seed's shape, leaving out and naming invalid ones", () => {
    const snapshot = snapshotOf(SMALL);
    snapshot.rows.set("broken", '{"input": -1, "output": 2}');
    const { seed, invalid } = exportSeed(snapshot);
    expect(seed).toEqual({
      models: Object.fromEntries(Object.entries(SMALL.models).sort(([a], [b]) => a.localeCompare(b))),
    });
    expect(invalid.map((row) => row.model)).toEqual(["broken"]);
  });
});

describe("names that shadow Object.prototype", () => {
  const ROW = { input: 2, output: 8 };

  it("validateSeed refuses a __proto__ model by name, and takes constructor and toString", () => {
    const reserved = validateSeed(JSON.parse('{"models":{"__proto__":{"input":1,"output":2}}}'), TODAY);
    expect(reserved.errors).toEqual(["models.__proto__: is a reserved name"]);
    const inherited = validateSeed({ models: { constructor: ROW, other: { ...ROW, aliases: ["toString"] } } }, TODAY);
    expect(inherited.errors).toEqual([]);
    expect(Object.keys(inherited.seed?.models ?? {})).toEqual(["constructor", "other"]);
  });

  it("diffSeed sees rows and aliases named constructor or toString as they are", () => {
    const seed = { models: { constructor: ROW } } as PricingSeed;
    const snapshot: KvSnapshot = {
      rows: new Map([["toString", JSON.stringify(ROW)]]),
      aliases: new Map([["valueOf", "constructor"]]),
    };
    const diff = diffSeed(seed, snapshot);
    expect(diff.rows.map((row) => [row.model, row.kind])).toEqual([
      ["constructor", "added"],
      ["toString", "only_in_kv"],
    ]);
    expect(diff.aliases).toEqual([{ alias: "valueOf", from: "constructor", to: null }]);
  });

  it("exportSeed keeps a row stored as __proto__ as an own key of the file", () => {
    const { seed } = exportSeed({
      rows: new Map([
        ["__proto__", JSON.stringify(ROW)],
        ["constructor", JSON.stringify(ROW)],
      ]),
      aliases: new Map(),
    });
    expect(Object.hasOwn(seed.models, "__proto__")).toBe(true);
    expect(JSON.parse(JSON.stringify(seed)).models).toEqual(
      JSON.parse('{"__proto__":{"input":2,"output":8},"constructor":{"input":2,"output":8}}'),
    );
  });
});
