// Types of zod.js here: zod's own (its `locales` and `core.locales` are
// empty objects at run time; nothing in the project uses them).
export * from "zod";
export { z, default } from "zod";
