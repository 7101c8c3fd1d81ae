/**
 * Reading the served OpenAPI document in tests: a node's schema as a
 * standalone JSON Schema, validation against it, and the walks the OpenAPI
 * suites share (test/surface/openapi.test.ts, openapi-answers.test.ts).
 *
 * @module
 */
import { Validator, type Schema } from "@cfworker/json-schema";

export type Json = Record<string, any>;

/** A standalone JSON Schema (2020-12) for a node of the document, its `$ref`s pointing at `$defs`. */
export function standalone(doc: Json, schema: unknown): Schema {
  const rewrite = (value: unknown) =>
    JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/'));
  return { ...rewrite(schema), $defs: rewrite(doc.components?.schemas ?? {}) };
}

export function validate(doc: Json, schema: unknown, value: unknown): string[] {
  const result = new Validator(standalone(doc, schema), "2020-12", false).validate(value);
  return result.errors.map((error) => `${error.instanceLocation}: ${error.error}`);
}

export const resolve = (doc: Json, schema: Json): Json =>
  typeof schema.$ref === "string"
    ? resolve(doc, doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")])
    : schema;

/** Keys the value carries that its documented schema does not declare: the document must not under-describe an answer. */
export function undeclaredKeys(doc: Json, value: unknown, schema: Json, at = "$"): string[] {
  const s = resolve(doc, schema);
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
    if (validate(doc, branch, value).length === 0) return undeclaredKeys(doc, value, branch, at);
  }
  if (Array.isArray(value))
    return value.flatMap((item, i) => (s.items ? undeclaredKeys(doc, item, s.items, `${at}[${i}]`) : []));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const declared = s.properties?.[key];
    if (declared !== undefined) return undeclaredKeys(doc, child, declared, `${at}.${key}`);
    return s.additionalProperties !== undefined && s.additionalProperties !== false ? [] : [`${at}.${key}`];
  });
}

export interface Example {
  where: string;
  schema: unknown;
  value: unknown;
}

/**
 * Every example the document carries, with the schema it illustrates: on
 * schemas (`example`, `examples: []`), and on media types and parameters
 * (`example`, `examples: { name: { value } }`). Example values themselves
 * are not walked: they are data, not schema.
 */
export function examplesIn(node: unknown, where: string, out: Example[] = []): Example[] {
  if (node === null || typeof node !== "object") return out;
  if (Array.isArray(node)) {
    node.forEach((item, i) => examplesIn(item, `${where}/${i}`, out));
    return out;
  }
  const obj = node as Json;
  const { example, examples, ...rest } = obj;
  if ("schema" in obj && (example !== undefined || examples !== undefined)) {
    if (example !== undefined) out.push({ where, schema: obj.schema, value: example });
    for (const [name, entry] of Object.entries((examples ?? {}) as Json))
      out.push({ where: `${where}#${name}`, schema: obj.schema, value: entry.value });
  } else if (example !== undefined || Array.isArray(examples)) {
    const schema = { ...rest };
    if (example !== undefined) out.push({ where, schema, value: example });
    for (const [i, value] of (Array.isArray(examples) ? examples : []).entries())
      out.push({ where: `${where}#${i}`, schema, value });
  }
  for (const [key, child] of Object.entries(rest)) examplesIn(child, `${where}/${key}`, out);
  return out;
}
