import { describe, expect, it } from "vitest";
import { call } from "../support/helpers";

type Json = Record<string, unknown>;

// Every `$ref` in the served document must point at something in it: a
// dangling one (a schema referenced by name but never registered) breaks
// every client generator and Swagger UI's rendering of that body.

/** Every `$ref` in the document, with where it sits. */
function refsIn(node: unknown, at: string, out: Array<{ at: string; ref: string }> = []) {
  if (node === null || typeof node !== "object") return out;
  for (const [key, child] of Object.entries(node as Json)) {
    if (key === "$ref" && typeof child === "string") out.push({ at, ref: child });
    else refsIn(child, `${at}/${key}`, out);
  }
  return out;
}

/** The node a local JSON Pointer (`#/components/schemas/X`) names, or undefined. */
function pointee(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

describe("the $refs of GET /openapi.json", () => {
  it("all resolve to a node of the document itself", async () => {
    const doc = await (await call("/openapi.json")).json<Json>();
    const refs = refsIn(doc, "#");
    expect(refs.length).toBeGreaterThan(20);
    expect(refs.filter(({ ref }) => pointee(doc, ref) === undefined)).toEqual([]);
  });

  it("include the report items both report routes refer to by name", async () => {
    const doc = await (await call("/openapi.json")).json<Json>();
    const refs = new Set(refsIn(doc, "#").map(({ ref }) => ref));
    for (const name of ["OutcomeReport", "SessionReport"]) {
      expect(refs).toContain(`#/components/schemas/${name}`);
      expect(pointee(doc, `#/components/schemas/${name}`)).toMatchObject({ type: "object" });
    }
  });

  it("would catch a reference to a schema the document does not hold", () => {
    const doc = {
      components: { schemas: { A: { type: "object" } } },
      paths: { x: { $ref: "#/components/schemas/B" } },
    };
    expect(refsIn(doc, "#").filter(({ ref }) => pointee(doc, ref) === undefined)).toEqual([
      { at: "#/paths/x", ref: "#/components/schemas/B" },
    ]);
  });
});
