import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { generate, jsonSchemaOf, schemaHash, targets, type Target } from "../../scripts/validators/generate";

// The schemas' modules reach the ledger's Durable Object class, whose base class only workerd provides.
vi.mock("cloudflare:workers", () => ({ DurableObject: class {} }));

// The generated validators (npm run validators) are committed: each must be
// what the generator writes from today's zod schemas, so a schema changed
// without regenerating fails here, naming the stale file.

const ROOT = join(__dirname, "..", "..");
let TARGETS: Target[] = [];

beforeAll(async () => {
  TARGETS = await targets();
});

describe("the validators compiled from the zod schemas", () => {
  it("writes, from today's schemas, what is committed", () => {
    expect(TARGETS.length).toBeGreaterThan(0);
    for (const { path, ...target } of TARGETS) {
      const { js, dts } = generate({ path, ...target });
      expect(readFileSync(join(ROOT, path), "utf8"), `${path} is stale: run npm run validators`).toBe(js);
      expect(
        readFileSync(join(ROOT, path.replace(/\.js$/, ".d.ts")), "utf8"),
        `${path} is stale: run npm run validators`,
      ).toBe(dts);
    }
  });

  it("regenerates every generated module under src/, so none is left unchecked", () => {
    // A module the generator no longer names would still be imported, and never compared with its schemas.
    const committed = (readdirSync(join(ROOT, "src"), { recursive: true }) as string[])
      .filter((file) => file.endsWith(".generated.js"))
      .map((file) => `src/${file}`)
      .sort();
    expect(committed.length).toBeGreaterThan(0);
    expect(TARGETS.map((target) => target.path).sort()).toEqual(committed);
  });

  it("carries each schema's hash, so a stale module names the schema that moved", () => {
    for (const target of TARGETS) {
      const text = readFileSync(join(ROOT, target.path), "utf8");
      for (const [name, schema] of Object.entries(target.schemas))
        expect(text).toContain(`"${name}": "${schemaHash(jsonSchemaOf(schema))}"`);
    }
  });

  it("writes another module when a schema's rule changes, and the same one when nothing does", () => {
    const at = (max: number) => ({ path: "x.js", schemas: { x: z.strictObject({ n: z.number().max(max) }) } });
    expect(generate(at(2)).js).toBe(generate(at(2)).js);
    expect(generate(at(2)).js).not.toBe(generate(at(3)).js);
  });

  it("refuses, at build time, a schema JSON Schema cannot express", () => {
    expect(() => jsonSchemaOf(z.bigint())).toThrow();
  });

  it("counts a string's length as zod does, in code points, and loads as an ES module", async () => {
    // 64 emoji are 128 UTF-16 code units and 64 code points: at a row's 64-character provider limit.
    const row = (n: number) => ({ input: 3, output: 15, provider: "\u{1F600}".repeat(n) });
    const { PricingRowSchema } = await import("../../src/storage/schemas/schema");
    const { pricingRow } = await import("../../src/storage/validators.generated.js");
    for (const n of [63, 64, 65])
      expect(pricingRow(row(n)), `${n} emoji`).toBe(PricingRowSchema.safeParse(row(n)).success);
    expect(pricingRow(row(64))).toBe(true);
    expect(pricingRow(row(65))).toBe(false);
    for (const { path } of TARGETS) expect(readFileSync(join(ROOT, path), "utf8")).not.toMatch(/\brequire\(/);
  });

  it("writes no eval and no Function constructor into a module", () => {
    for (const target of TARGETS) expect(generate(target).js).not.toMatch(/\beval\s*\(|new Function|\bFunction\s*\(/);
  });
});
