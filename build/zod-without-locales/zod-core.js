// zod/v4/core without its `locales` namespace (see zod.js).
export * from "../../node_modules/zod/v4/core/index.js";
export const locales = {};
