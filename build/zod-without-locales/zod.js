// What `import ... from "zod"` resolves to in the worker's bundle
// (wrangler.toml's [alias]): zod itself, minus the translations of its error
// messages. @hono/zod-openapi hands the whole `z` namespace to
// zod-to-openapi, and a namespace used as a value keeps every module it
// names, so zod's `locales` (60-odd files, half of zod's bytes) would
// be bundled and evaluated at startup although the worker answers in
// English only (zod registers `en` itself, from its own schemas).
import * as z from "./zod-external.js";

export * from "./zod-external.js";
export { z, z as default };
