import { SwaggerUI } from "@hono/swagger-ui";
import { html, raw } from "hono/html";
import { secureHeaders } from "hono/secure-headers";
import { ApiError } from "../../http";
import { createApp } from "../kernel/openapi";

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
 * GET /docs: Swagger UI for /openapi.json. Its bundle and stylesheet are
 * Workers Static Assets (public/, copied from swagger-ui-dist by `npm
 * install`), which the platform serves without running the worker; this
 * route serves the small starter script, and the other files through the
 * ASSETS binding for a request that reaches the worker anyway (tests
 * calling the worker directly). Nothing comes from a CDN, so /docs works
 * offline and under a same-origin Content-Security-Policy.
 *
 * @example
 * app.route("/", docs); // then open http://127.0.0.1:8787/docs
 */
export const docs = createApp()
  .get("/docs", csp, (c) => c.html(page()))
  .get(`${DOCS_ASSET_BASE}/init.js`, (c) =>
    c.body(INIT_SCRIPT, 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=3600",
      "x-content-type-options": "nosniff",
    }),
  )
  .get(`${DOCS_ASSET_BASE}/:file{.+}`, async (c) => {
    const asset = await c.env.ASSETS.fetch(c.req.raw);
    if (asset.status === 404) throw new ApiError("not_found", `no docs asset ${c.req.param("file")}`);
    return asset;
  });
