import { SwaggerUI } from "@hono/swagger-ui";
import { html, raw } from "hono/html";
import { secureHeaders } from "hono/secure-headers";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js";
import swaggerCss from "swagger-ui-dist/swagger-ui.css";
import { ApiError } from "../../http/errors";
import { createApp } from "../app";

export { OPENAPI_INFO, serveOpenApi } from "./openapi";

/** Where /docs serves Swagger UI's files from: this worker, never a CDN. */
export const DOCS_ASSET_BASE = "/docs/assets";

// Same-origin only: Swagger UI's bundle, its stylesheet and this small
// starter are all served by the worker, so nothing needs an inline script.
const INIT_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: "none",
    defaultModelsExpandDepth: 1,
  });
});
`;

const assets: Record<string, { body: string; type: string }> = {
  "swagger-ui-dist/swagger-ui-bundle.js": { body: swaggerBundle, type: "text/javascript; charset=utf-8" },
  "swagger-ui-dist/swagger-ui.css": { body: swaggerCss, type: "text/css; charset=utf-8" },
  "init.js": { body: INIT_SCRIPT, type: "text/javascript; charset=utf-8" },
};

const page = () =>
  html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>offload-gate API</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    ${raw(
      SwaggerUI({
        url: "/openapi.json",
        baseUrl: DOCS_ASSET_BASE,
        manuallySwaggerUIHtml: (asset) =>
          [
            `<div id="swagger-ui"></div>`,
            ...asset.css.map((href) => `<link rel="stylesheet" href="${href}" />`),
            ...asset.js.map((src) => `<script src="${src}"></script>`),
            `<script src="${DOCS_ASSET_BASE}/init.js"></script>`,
          ].join("\n"),
      }),
    )}
    <noscript>Swagger UI needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
  </body>
</html>`;

const csp = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", "data:"],
    fontSrc: ["'self'", "data:"],
    connectSrc: ["'self'"],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
});

/**
 * GET /docs: Swagger UI for /openapi.json, with its bundle and stylesheet
 * served by this worker (swagger-ui-dist, bundled as text), so it works
 * offline and under a same-origin Content-Security-Policy.
 *
 * @example
 * app.route("/", docs); // then open http://127.0.0.1:8787/docs
 */
export const docs = createApp()
  .get("/docs", csp, (c) => c.html(page()))
  .get(`${DOCS_ASSET_BASE}/:file{.+}`, (c) => {
    const asset = assets[c.req.param("file")];
    if (asset === undefined) throw new ApiError("not_found", `no docs asset ${c.req.param("file")}`);
    return c.body(asset.body, 200, {
      "content-type": asset.type,
      "cache-control": "public, max-age=3600",
      "x-content-type-options": "nosniff",
    });
  });
