/**
 * Compiles zod schemas, the one source of truth, into standalone validators
 * at build time: zod's JSON Schema output (`z.toJSONSchema`, the input side)
 * through Ajv's standalone code generator. The generated module is plain
 * JavaScript with no `eval` and no `new Function`, committed beside the code
 * that calls it, so the worker validates a well-formed request without
 * building a zod schema. What JSON Schema cannot say (refinements, checks
 * across fields) stays in plain code the caller runs after it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone";
import { z } from "zod";
import { NAME_RECORDS } from "../../src/storage/schemas/name-record";

/** One generated module: where it goes (from the repository's root) and the schemas it exports, by name. */
export interface Target {
  path: string;
  schemas: Record<string, z.ZodType>;
  /** Objects whose key order zod's output follows (its shape's), exported as KEY_ORDER for code that rebuilds it. */
  orders?: Record<string, z.ZodObject>;
}

// The worker's modules are loaded, not imported: they are the worker's to
// type-check (the root tsconfig), and one of them reaches workerd's own
// modules, which Node answers with ./workerd-stub.mjs.
const load = async (path: string, name: string): Promise<z.ZodType> =>
  ((await import(path)) as Record<string, z.ZodType>)[name] as z.ZodType;

/**
 * The modules `npm run validators` writes, with the schemas each compiles.
 *
 * @example
 * for (const target of await targets()) writeFileSync(target.path, generate(target).js);
 */
export async function targets(): Promise<Target[]> {
  return [
    {
      // The stored values the first gate answer reads (src/storage/checked.ts).
      path: "src/storage/validators.generated.js",
      schemas: {
        pricingRow: await load("../../src/storage/schemas/schema", "PricingRowSchema"),
        gateConfig: await load("../../src/storage/schemas/config", "GateConfigSchema"),
        learnedValue: await load("../../src/storage/schemas/learning-schema", "LearnedValueSchema"),
      },
      orders: await storedOrders(),
    },
    {
      path: "src/routes/gate/direct/validators.generated.js",
      schemas: {
        gateRequest: await load("../../src/routes/gate/schemas/schema", "GateRequestSchema"),
        gateBatchRequest: await load("../../src/routes/gate/schemas/batch-schema", "GateBatchRequestSchema"),
      },
    },
  ];
}

// The objects of a pricing row and a learned value, whose key order zod's copy has (priced_as copies a row's).
async function storedOrders(): Promise<Record<string, z.ZodObject>> {
  const row = await import("../../src/storage/schemas/schema");
  const learned = await import("../../src/storage/schemas/learning-schema");
  const entry = (record: z.ZodType) => NAME_RECORDS.get(record)?.value as z.ZodObject;
  const value = learned.LearnedValueSchema;
  return {
    pricingRow: row.PricingRowSchema,
    longContext: row.LongContextTierSchema,
    scheduledChange: row.ScheduledChangeSchema,
    learnedValue: value,
    window: value.shape.window,
    levelSums: learned.LevelSumsShape,
    tool: entry(value.shape.tools),
    breaker: learned.BreakerStateSchema,
    evidence: learned.BreakerStateSchema.shape.evidence.unwrap(),
    replayTool: learned.ReplayToolSchema,
    bands: learned.ReplayToolSchema.shape.bands.unwrap(),
    toolBands: learned.ToolBandsSchema,
    bandP: learned.BandPShape,
    trust: learned.ToolTrustSchema,
    trustFlag: learned.ToolTrustSchema.shape.flags.element,
  } as Record<string, z.ZodObject>;
}

/**
 * A schema's JSON Schema as the validator checks it: the input side (what a
 * caller may send), draft-07, and a schema zod cannot express throws here,
 * at build time, rather than validating less than zod does.
 *
 * @example
 * jsonSchemaOf(z.strictObject({ a: z.number() })) // { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false }
 */
export function jsonSchemaOf(schema: z.ZodType, records?: Map<z.ZodType, string>): Record<string, unknown> {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, {
    io: "input",
    target: "draft-7",
    unrepresentable: "throw",
    // Compiled once each rather than inlined at every use, when the caller collects them.
    ...(records === undefined ? {} : { reused: "ref" as const }),
    // A name record (src/storage/schemas/name-record.ts) is a transform, whose input side
    // JSON Schema would leave unchecked: it is an object of entries, each checked.
    override: (ctx) => {
      const record = NAME_RECORDS.get(ctx.zodSchema as unknown as z.ZodType);
      if (record === undefined) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
      let entry: Record<string, unknown>;
      if (records === undefined) entry = jsonSchemaOf(record.value);
      else {
        const id = records.get(record.value) ?? `record${records.size}`;
        records.set(record.value, id);
        entry = { $ref: id };
      }
      Object.assign(ctx.jsonSchema, {
        type: "object",
        propertyNames: jsonSchemaOf(record.key),
        additionalProperties: entry,
      });
    },
  }) as Record<string, unknown>;
  return json;
}

/**
 * The sha256 of a JSON Schema's text, which the generated module carries so
 * a stale one names the schema that moved.
 *
 * @example
 * schemaHash({ type: "number" }) // "…64 hex digits…"
 */
export function schemaHash(json: Record<string, unknown>): string {
  return createHash("sha256").update(JSON.stringify(json)).digest("hex");
}

const HEADER = `// Generated by \`npm run validators\` (scripts/validators/generate.ts) from the zod
// schemas it names: zod's JSON Schema through Ajv's standalone code. Do not edit;
// change the zod schema and run \`npm run validators\` (test/node/validators.test.ts
// fails while this file is stale). No eval: plain functions and regular expressions.
// @ts-nocheck
`;

// Ajv's standalone code require()s its string-length helper even in ES module
// mode, so the module would not load under plain Node (npm run validators
// imports the schemas' modules, which import it). The helper is inlined with
// the same count, code points as zod counts them; any other require() is a
// build error rather than a module that loads only through a bundler.
const UCS2LENGTH = /require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g;
const CODE_POINTS = "((text) => { let n = 0; for (const _ of text) n += 1; return n; })";

function esmOnly(code: string): string {
  const inlined = code.replace(UCS2LENGTH, CODE_POINTS);
  const left = /\brequire\(("[^"]*")\)/.exec(inlined);
  if (left !== null) throw new Error(`Ajv's standalone code requires ${left[1]}: inline it in esmOnly`);
  return inlined;
}

/**
 * The text of one generated module and of its type declarations.
 *
 * @example
 * const { js, dts } = generate((await targets())[0]);
 */
export function generate(target: Target): { js: string; dts: string } {
  // Zod's regular expressions carry no flags: Ajv's `u` flag would read some patterns differently.
  const ajv = new Ajv({
    code: { source: true, esm: true, lines: true },
    strict: true,
    unicodeRegExp: false,
    messages: false,
    allErrors: false,
    // A schema used in many places is one function, not a copy at each.
    inlineRefs: false,
    // Checked in plain code beside the validator (src/storage/checked.ts): the
    // date formats by zod's own pattern, which zod writes beside them; a URL as
    // zod's z.url parses it, which JSON Schema's "uri" does not say.
    formats: { date: true, "date-time": true, uri: true },
  });
  const hashes: Record<string, string> = {};
  const exports: Record<string, string> = {};
  // Name records' entries, compiled once each as schemas of their own (record0, record1, …).
  const records = new Map<z.ZodType, string>();
  for (const [name, schema] of Object.entries(target.schemas)) {
    hashes[name] = schemaHash(jsonSchemaOf(schema));
    ajv.addSchema(jsonSchemaOf(schema, records), name);
    exports[name] = name;
  }
  const added = new Set<string>();
  for (let pending = [...records]; pending.length > 0; pending = [...records].filter(([, id]) => !added.has(id))) {
    for (const [value, id] of pending) {
      added.add(id);
      ajv.addSchema(jsonSchemaOf(value, records), id);
    }
  }
  const code = esmOnly(standaloneCode(ajv, exports).replace(/^"use strict";\n/, ""));
  const orders = Object.fromEntries(
    Object.entries(target.orders ?? {}).map(([name, object]) => [name, Object.keys(object.shape)]),
  );
  const ordersJs =
    target.orders === undefined
      ? ""
      : `/** The key order of zod's copy of each object (its shape's). */\nexport const KEY_ORDER = ${JSON.stringify(orders, null, 2)};\n\n`;
  const js = `${HEADER}\n/** Each validator's JSON Schema, by sha256. */\nexport const SCHEMA_SHA256 = ${JSON.stringify(hashes, null, 2)};\n\n${ordersJs}${code}`;
  const names = Object.keys(target.schemas);
  const dts =
    `// Generated by \`npm run validators\` beside ${target.path.split("/").pop()}. Do not edit.\n` +
    `/** Each validator's JSON Schema, by sha256. */\nexport declare const SCHEMA_SHA256: Readonly<Record<${names.map((name) => JSON.stringify(name)).join(" | ")}, string>>;\n` +
    (target.orders === undefined
      ? ""
      : `/** The key order of zod's copy of each object (its shape's). */\nexport declare const KEY_ORDER: {\n${Object.keys(
          target.orders,
        )
          .map((name) => `  readonly ${name}: readonly string[];\n`)
          .join("")}};\n`) +
    names
      .map(
        (name) =>
          `/** true when \`data\` passes the JSON Schema of the zod schema "${name}" stands for (refinements are the caller's). */\nexport declare function ${name}(data: unknown): boolean;\n`,
      )
      .join("");
  return { js, dts };
}
