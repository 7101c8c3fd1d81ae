import { beforeAll, describe, expect, it } from "vitest";
import answersPy from "../../clients/python/src/offload_gate/_answers.py?raw";
import modelsPy from "../../clients/python/src/offload_gate/_models.py?raw";
import requestsPy from "../../clients/python/src/offload_gate/_requests.py?raw";
// @ts-expect-error -- a plain .mjs module without types; its exports are documented there.
import { MODELS, renderPythonModels } from "../../clients/scripts/python-models.mjs";
import { z } from "zod";
import { OutcomeItemSchema, SessionItemSchema } from "../../src/routes/ledger/schema";
import { call } from "../support/helpers";

// The Python client's models (models.py re-exports them from _requests.py and
// _answers.py) take their fields from _models.py, which
// clients/scripts/python-models.mjs generates from the worker's own
// /openapi.json. The committed file must be what the document gives today: a
// field renamed, added or retyped on the worker's side fails here until the
// file is regenerated. Read as text, its dataclasses are also held to the
// schemas' required fields and types, so a wrong rule in the generator fails.

type Json = Record<string, any>;

/** One dataclass field: its annotation, whether it has a default, and that default's text. */
interface PyField {
  annotation: string;
  required: boolean;
  default: string | null;
}

/**
 * The dataclasses of a Python module: class name → its fields, in order.
 * Fields are the class body's `name: Annotation [= default]` lines at one
 * indent; names starting with `_` (ClassVars, private state) are skipped.
 */
function parseDataclasses(source: string): Map<string, Map<string, PyField>> {
  const classes = new Map<string, Map<string, PyField>>();
  const lines = source.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "@dataclass") continue;
    const header = /^class (\w+?)(?:Fields)?[(:]/.exec(lines[i + 1] ?? "");
    if (header === null) continue;
    const fields = new Map<string, PyField>();
    for (let j = i + 2; j < lines.length && !/^\S/.test(lines[j] ?? ""); j++) {
      const m = /^ {4}([a-z]\w*): (.+?)(?: = (.+))?$/.exec(lines[j] ?? "");
      if (m !== null)
        fields.set(m[1] as string, { annotation: m[2] as string, required: m[3] === undefined, default: m[3] ?? null });
    }
    classes.set(header[1] as string, fields);
  }
  return classes;
}

// Fields a dataclass keeps for itself (answers' unknown keys, the client's own fault), never JSON.
const LOCAL = new Set(["extra", "error"]);

let doc: Json;
const resolve = (schema: Json): Json =>
  schema.$ref ? resolve(doc.components.schemas[String(schema.$ref).split("/").pop() as string]) : schema;

/** The JSON types a schema admits: "null" included when it is nullable. */
function jsonTypes(raw: Json): Set<string> {
  const schema = resolve(raw);
  const types = new Set<string>();
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    for (const t of jsonTypes(branch)) types.add(t);
  if (Array.isArray(schema.type)) for (const t of schema.type) types.add(t);
  else if (typeof schema.type === "string") types.add(schema.type);
  else if (schema.enum !== undefined) for (const v of schema.enum) types.add(v === null ? "null" : typeof v);
  if (schema.nullable === true) types.add("null");
  return types;
}

/** What a Python annotation reads: the JSON types it accepts ("any" for Any), "null" when Optional. */
function pythonTypes(annotation: string): Set<string> {
  const optional = /^Optional\[(.*)\]$/.exec(annotation);
  const inner = optional ? (optional[1] as string) : annotation;
  const base = /^(\w+)/.exec(inner)?.[1] ?? inner;
  const map: Record<string, string[]> = {
    int: ["integer"],
    float: ["number", "integer"],
    str: ["string"],
    bool: ["boolean"],
    List: ["array"],
    Tuple: ["array"],
    Sequence: ["array"],
    Dict: ["object"],
    Mapping: ["object"],
    JSONObject: ["object"],
    Union: ["object"],
    Any: ["any"],
  };
  const types = new Set(map[base] ?? ["object"]); // another dataclass: a JSON object
  if (optional) types.add("null");
  return types;
}

// Dataclass → the schema it copies, as a path into the document.
const COPIES: Record<string, (d: Json) => Json> = {
  GateRequest: (d) => d.components.schemas.GateRequest,
  Segment: (d) => d.components.schemas.PlanSegment,
  PlanRequest: (d) => d.components.schemas.PlanRequest,
  // The document's report requests point at #/components/schemas/OutcomeReport and SessionReport,
  // which it does not register: these two are compared with the routes' own schemas instead.
  Outcome: () => input(OutcomeItemSchema) as Json,
  SessionReport: () => input(SessionItemSchema) as Json,
  StalePricing: (d) => resolve(d.components.schemas.GateDecision).properties.stale_pricing,
  WorstCase: (d) => d.components.schemas.WorstCase,
  ResolvedInputs: (d) => d.components.schemas.ResolvedInputs,
  GateDecision: (d) => d.components.schemas.GateDecision,
  PlanCandidate: (d) => resolve(d.components.schemas.Plan).properties.candidates.items,
  Plan: (d) => d.components.schemas.Plan,
  ReportResult: (d) => d.components.schemas.ReportItemResult,
  Report: (d) => d.components.schemas.ReportResponse,
};
const REQUESTS = new Set(["GateRequest", "Segment", "PlanRequest", "Outcome", "SessionReport"]);

// Schema fields the client leaves to `extra` on purpose (read or send them there), and
// client fields the answer schema does not carry, each with why.
const ANSWER_FIELDS_IN_EXTRA: Record<string, string[]> = {
  // The Python client makes no dry runs (the console does); a caller may still send `dry_run` in `extra`.
  GateRequest: ["dry_run"],
  PlanRequest: ["dry_run"],
  GateDecision: ["priors", "suggestions", "dry_run"],
  Plan: ["exact", "lifecycle", "dry_run", "would_stub", "would_net_saving_usd"],
};
const CLIENT_ONLY: Record<string, string[]> = {
  // A batch item the gate refused carries `issues` (GateBatchItemError), read into the same dataclass.
  GateDecision: ["issues"],
};

/** A schema's object shape: its properties and required names (through one anyOf with null). */
function objectOf(raw: Json): { properties: Json; required: Set<string> } {
  let schema = resolve(raw);
  const branch = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map(resolve).find((s) => s.properties);
  if (!schema.properties && branch) schema = branch;
  return { properties: schema.properties ?? {}, required: new Set(schema.required ?? []) };
}

const classes = parseDataclasses(modelsPy);
const input = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

beforeAll(async () => {
  const res = await call("/openapi.json");
  expect(res.status).toBe(200);
  doc = await res.json<Json>();
});

describe("the Python client's models against /openapi.json", () => {
  it("are what clients/scripts/python-models.mjs generates from today's document", () => {
    expect(
      renderPythonModels(doc, input(OutcomeItemSchema), input(SessionItemSchema)),
      "_models.py is stale: npx tsx --import ./scripts/validators/workerd-stub.mjs clients/scripts/write-python-models.mjs",
    ).toBe(modelsPy);
    expect(modelsPy.startsWith("# Generated by clients/scripts/python-models.mjs")).toBe(true);
  });

  it("are each subclassed by the hand-written model of the same name, which adds no field the document has", () => {
    const written = parseDataclasses(`${requestsPy}\n${answersPy}`);
    for (const { name } of MODELS as { name: string }[]) {
      expect(`${requestsPy}\n${answersPy}`, name).toMatch(new RegExp(`^class ${name}\\(${name}Fields[,)]`, "m"));
      const own = [...(written.get(name)?.keys() ?? [])].filter(
        (f) => !LOCAL.has(f) && !(CLIENT_ONLY[name] ?? []).includes(f),
      );
      expect(own, `${name}'s hand-written fields`).toEqual([]);
    }
  });

  it("parses every dataclass it copies from the document", () => {
    expect([...classes.keys()].filter((name) => name in COPIES).sort()).toEqual(Object.keys(COPIES).sort());
    expect(classes.get("GateDecision")?.get("fire")).toEqual({ annotation: "bool", required: true, default: null });
  });

  for (const [name, locate] of Object.entries(COPIES)) {
    it(`${name} has the schema's field names, no more and no fewer`, () => {
      const fields = [...(classes.get(name)?.keys() ?? [])].filter(
        (f) => !LOCAL.has(f) && !(CLIENT_ONLY[name] ?? []).includes(f),
      );
      const { properties } = objectOf(locate(doc));
      const schemaNames = Object.keys(properties).filter((f) => !(ANSWER_FIELDS_IN_EXTRA[name] ?? []).includes(f));
      expect(
        fields.filter((f) => !(f in properties)),
        "fields the schema does not have",
      ).toEqual([]);
      expect(
        schemaNames.filter((f) => !fields.includes(f)),
        "schema fields the dataclass lacks",
      ).toEqual([]);
    });

    it(`${name} requires what the schema requires${REQUESTS.has(name) ? "" : " of the fields the client acts on"}, and types each field as the schema does`, () => {
      const fields = classes.get(name) ?? new Map<string, PyField>();
      const { properties, required } = objectOf(locate(doc));
      for (const [field, py] of fields) {
        if (LOCAL.has(field) || !(field in properties)) continue;
        // A request field without a default must be required by the schema, and one the schema requires
        // must always be sent: no default, or one that is not None (a left-out None is not sent).
        if (REQUESTS.has(name)) {
          if (py.required) expect(required.has(field), `${name}.${field} is required by the schema`).toBe(true);
          if (required.has(field)) expect(py.default, `${name}.${field} is always sent`).not.toBe("None");
        }
        // An answer field without a default must be one the gate always sends.
        else if (py.required) expect(required.has(field), `${name}.${field} is always in the answer`).toBe(true);
        const want = jsonTypes(properties[field]);
        const have = pythonTypes(py.annotation);
        if (have.has("any") || want.size === 0) continue;
        const missing = [...want].filter((t) => !have.has(t) && !(t === "null" && !REQUESTS.has(name) && !py.required));
        expect(missing, `${name}.${field}: ${py.annotation} against ${[...want].join(" | ")}`).toEqual([]);
      }
    });
  }
});
