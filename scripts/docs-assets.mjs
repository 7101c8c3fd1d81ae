// `npm install`'s postinstall: copies Swagger UI's bundle and stylesheet
// from the pinned swagger-ui-dist into public/ (git-ignored), where Workers
// Static Assets serve them at /docs/assets/swagger-ui-dist/. Served from
// there, 1.9 MB of Swagger UI stays out of the worker's script and its
// startup; a new swagger-ui-dist version is copied by the install that
// brings it.
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { bundleReplayPage } from "./replay/bundle.mjs";

const FILES = ["swagger-ui-bundle.js", "swagger-ui.css"];
const target = join(import.meta.dirname, "..", "public", "docs", "assets", "swagger-ui-dist");
const source = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

mkdirSync(target, { recursive: true });
for (const file of FILES) copyFileSync(join(source, file), join(target, file));

// The console replay page's script: src/replay bundled for the browser.
await bundleReplayPage();
