// zod/v4/classic/external.js as the bundle sees it: an own `locales` and
// `core` shadow the ones `export *` would bring, so neither names a locale;
// an own `fromJSONSchema` shadows zod's, whose module (a JSON Schema →
// zod converter the worker never uses) would otherwise be evaluated at startup.
export * from "../../node_modules/zod/v4/classic/external.js";
export * as core from "./zod-core.js";
export const locales = {};

/** Not in the worker's zod: nothing here builds a schema from JSON Schema. */
export function fromJSONSchema() {
  throw new Error("fromJSONSchema is left out of the worker's zod (build/zod-without-locales/zod.js)");
}
