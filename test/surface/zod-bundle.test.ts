import * as zod from "zod";
import { describe, expect, it } from "vitest";
import * as lean from "../../build/zod-without-locales/zod.js";

// wrangler.toml's [alias] makes build/zod-without-locales/zod.js the zod that deploys; the tests
// themselves import zod as it is, so this file checks the two agree.
describe("build/zod-without-locales/zod.js, the zod the deployed worker is built with", () => {
  it("exports every name zod exports, in z and in z.core too", () => {
    expect(Object.keys(lean).sort()).toEqual(Object.keys(zod).sort());
    expect(Object.keys(lean.z).sort()).toEqual(Object.keys(zod.z).sort());
    expect(Object.keys(lean.z.core).sort()).toEqual(Object.keys(zod.z.core).sort());
    expect(lean.default).toBe(lean.z);
  });

  it("leaves out every translation", () => {
    expect(Object.keys(zod.z.locales).length).toBeGreaterThan(10);
    expect(lean.z.locales).toEqual({});
    expect(lean.z.core.locales).toEqual({});
  });

  it("leaves out the JSON Schema converter, which no route uses", () => {
    expect(typeof zod.z.fromJSONSchema).toBe("function");
    expect(() => lean.z.fromJSONSchema({ type: "string" })).toThrow(/left out of the worker's zod/);
  });

  it("is zod itself otherwise, with its English messages", () => {
    expect(lean.z.ZodType).toBe(zod.z.ZodType);
    const result = lean.z.strictObject({ horizon: lean.z.number().int() }).safeParse({ horizon: 1.5, extra: 1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      "Invalid input: expected int, received number",
      'Unrecognized key: "extra"',
    ]);
  });
});
