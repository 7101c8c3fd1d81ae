// zod/v4/classic/external.js as the bundle sees it: an own `locales` and
// `core` shadow the ones `export *` would bring, so neither names a locale.
export * from "../node_modules/zod/v4/classic/external.js";
export * as core from "./zod-core.js";
export const locales = {};
